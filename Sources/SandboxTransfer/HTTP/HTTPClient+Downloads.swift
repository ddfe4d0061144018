import AsyncHTTPClient

extension HTTPClientSettings {
    /// The settings of the client a session makes for itself when none is given: the
    /// configuration's connect timeout, stall timeout (as the read timeout) and redirect limit.
    static func forDownloads(_ configuration: DownloadSession.Configuration) -> HTTPClientSettings {
        HTTPClientSettings(
            connectTimeout: configuration.connectTimeout, readTimeout: configuration.stallTimeout,
            maximumRedirects: configuration.maximumRedirects)
    }
}

extension HTTPClient {
    /// The client a session makes for itself when none is given (``HTTPClientSettings``, made
    /// from the session's configuration). The session shuts it down.
    static func forDownloads(_ configuration: DownloadSession.Configuration) -> HTTPClient {
        HTTPClientSettings.forDownloads(configuration).makeClient()
    }
}
