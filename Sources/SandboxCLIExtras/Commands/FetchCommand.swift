import ArgumentParser
import Foundation
import Sandbox
import SandboxCLISupport
import SandboxTransfer

struct Fetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ExtraCommand.fetch.name,
        abstract: ExtraCommand.fetch.abstract,
        discussion: """
            Text is printed decoded: the charset comes from a byte-order mark, else the Content-Type's \
            charset parameter, else UTF-8; invalid bytes print as U+FFFD. An image prints its type and \
            pixel size sniffed from its header (e.g. "image/png 640×480, 12,345 bytes"; no pixel is \
            decoded), any other body its type and size. A body larger than --max-size fails with \
            too-large without being read (when announced) or as soon as it passes the limit. An error \
            status (4xx, 5xx) fails with http-status.
            """
    )

    @OptionGroup var app: AppArgument
    @Argument(help: "An http or https URL.")
    var url: String
    @Option(help: "The largest body accepted, e.g. 65536, 512K or 10M (default 16M).")
    var maxSize: ByteCountArgument?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard let parsed = URL(string: url), DownloadRequest.isSupported(parsed) else {
            throw ValidationError("'\(url)' is not an absolute http or https URL.")
        }
    }

    func run() async throws {
        _ = try app.container()  // data tasks run for an app, as downloads do: it must exist
        guard let address = URL(string: url) else { throw ValidationError("'\(url)' is not a URL.") }
        let request = DataRequest(url: address, maximumSize: maxSize?.value ?? DataRequest.defaultMaximumSize)
        let session = DataSession()
        let result: Result<FetchedData, SandboxError>
        do throws(SandboxError) {
            result = .success(try await session.fetch(request))
        } catch {
            result = .failure(error)
        }
        await session.invalidate()
        let fetched = try result.get()
        let response = fetched.response
        guard response.isSuccess else {
            throw SandboxError(
                .httpStatus, "The server answered \(response.status) for \(url); check the URL.", url: url)
        }
        let summary = FetchSummary(fetched)
        if output.json { return try Output.json(summary) }
        if let text = summary.text {
            try StandardStreams.output(text.utf8)
        } else {
            try Output.line(summary.line)
        }
    }
}

/// What `fetch` prints: the body as text, or what it is.
private struct FetchSummary: Encodable {
    var status: Int
    var url: String
    var contentType: String?
    var bytes: Int
    /// The decoded body, when it is text.
    var text: String?
    var charset: String?
    var image: Image?

    struct Image: Encodable {
        var format: String
        var width: Int
        var height: Int
    }

    init(_ fetched: FetchedData) {
        let response = fetched.response
        status = response.status
        url = response.url.absoluteString
        contentType = response.value(forHeader: "content-type")
        bytes = fetched.body.count
        if let image = fetched.image {
            self.image = Image(format: image.format.rawValue, width: image.width, height: image.height)
        } else if Self.readsAsText(fetched), let decoded = fetched.text() {
            text = decoded.string
            charset = decoded.charset.rawValue
        }
    }

    /// A textual `Content-Type`; or none, or `application/octet-stream` (what servers send for an
    /// unknown file), with a body that is UTF-8 without control characters other than spaces.
    private static func readsAsText(_ fetched: FetchedData) -> Bool {
        let type = fetched.response.mediaType
        if type?.isText == true { return true }
        guard type == nil || type?.description == "application/octet-stream" else { return false }
        guard let string = String(validating: fetched.body, as: UTF8.self) else { return false }
        return string.unicodeScalars.allSatisfy { $0.value >= 0x20 || "\t\n\r\u{0C}".unicodeScalars.contains($0) }
    }

    /// `image/png 640×480, 12,345 bytes`, or `application/pdf, 12,345 bytes`.
    var line: String {
        let size = "\(Self.grouped(bytes)) bytes"
        if let image { return "image/\(image.format) \(image.width)×\(image.height), \(size)" }
        let type = contentType.flatMap(MediaType.init)?.description ?? "application/octet-stream"
        return "\(type), \(size)"
    }

    /// `12345` as `12,345`, whatever the locale.
    private static func grouped(_ count: Int) -> String {
        var digits = Array(String(count))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return String(digits)
    }
}
