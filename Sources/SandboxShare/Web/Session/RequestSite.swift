import HTTPTypes
import Hummingbird
import Sandbox

/// Where a browser says a request comes from — `Sec-Fetch-Site` (Fetch Metadata) and `Origin` —
/// checked on the login form and on every request of a session, reads too.
///
/// Another port of this host is the same *site* (`same-site`: SameSite cookies do not keep it out)
/// but another *origin*: only this server's own origin passes. A client that sends neither field
/// (not a browser, or an old one) passes: the session's folder and CSRF token still stand.
enum RequestSite {
    /// Which requests pass.
    enum Allowance: Sendable {
        /// Only this server's own pages (`Sec-Fetch-Site: same-origin`): the login form, changes.
        case sameOrigin
        /// Those, and a navigation the user made (`none`: typed, a bookmark): reads.
        case sameOriginOrTyped
    }

    /// Refuses `request` when a browser says another site or another origin sent it.
    ///
    /// `Sec-Fetch-Site` is the browser's own word and decides when present; `Origin` must then
    /// be this server's or `null` (a page whose referrer policy is `no-referrer` posts with
    /// `Origin: null`). Without `Sec-Fetch-Site` (a browser from before Fetch Metadata), `Origin`,
    /// when present, must be this server's: `null` (a sandboxed frame, a `data:` page) is refused.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/forbidden`` when `Sec-Fetch-Site` is present and not allowed,
    ///   or `Origin` is another origin.
    static func check(_ request: Request, allowing allowance: Allowance) throws(SandboxError) {
        let site = request.headers.fieldValue(.secFetchSite)
        if let site, site != "same-origin", !(site == "none" && allowance == .sameOriginOrTyped) {
            throw SandboxError(
                .forbidden,
                "A request from another site or another server of this host (Sec-Fetch-Site: \(site.prefix(32))) "
                    + "is refused; open this server's address in the browser instead.")
        }
        guard let origin = request.headers.fieldValue(.origin), !(site != nil && origin == "null") else { return }
        let own = request.head.authority.map { "\(request.head.scheme ?? "http")://\($0)" }
        guard let own, origin.lowercased() == own.lowercased() else {
            throw SandboxError(
                .forbidden,
                "A request from the page '\(origin.prefix(100))' is refused; open this server's address in "
                    + "the browser instead.")
        }
    }
}
