import AsyncHTTPClient
import NIOCore
import Tracing

extension HTTPClient {
    /// The client a session makes for itself when none is given: the configuration's connect
    /// timeout, stall timeout (as the read timeout) and redirect limit, and no decompression (the
    /// bytes are stored as sent, and ranges count them). The session shuts it down. Requests are
    /// traced only when the process bootstrapped a tracer: the no-op one still built a span, and
    /// parsed the URL again for its attributes, per request. The timeouts go through NIO's
    /// `TimeAmount(Duration)`, which clamps: a timeout of years is not an overflow.
    static func forDownloads(_ configuration: DownloadSession.Configuration) -> HTTPClient {
        var settings = HTTPClient.Configuration(
            redirectConfiguration: configuration.maximumRedirects > 0
                ? .follow(max: configuration.maximumRedirects, allowCycles: false) : .disallow,
            timeout: .init(
                connect: TimeAmount(configuration.connectTimeout), read: TimeAmount(configuration.stallTimeout)),
            decompression: .disabled
        )
        settings.httpVersion = .automatic
        if InstrumentationSystem.tracer is NoOpTracer { settings.tracing.tracer = nil }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
    }
}
