extension ActiveLock {
    /// The lock as a `DAV:activelock` element (RFC 4918 §14.1), for `DAV:lockdiscovery` in a
    /// PROPFIND or LOCK response: locktype, lockscope, depth, owner, the timeout left at `now`
    /// (`Second-N` or `Infinite`), the token and the lock root's href.
    ///
    /// Elements use the `D:` prefix, which the enclosing document binds to `DAV:`.
    package func activeLockXML(now: Duration) -> String {
        var xml = "<D:activelock><D:locktype><D:write/></D:locktype>"
        xml += "<D:lockscope><D:\(scope.rawValue)/></D:lockscope>"
        xml += "<D:depth>\(depth == .zero ? "0" : "infinity")</D:depth>"
        if let owner { xml += "<D:owner>\(owner)</D:owner>" }
        xml += "<D:timeout>\(secondsLeft(at: now).map { "Second-\($0)" } ?? "Infinite")</D:timeout>"
        xml += "<D:locktoken><D:href>\(XMLText.escape(token))</D:href></D:locktoken>"
        xml += "<D:lockroot><D:href>\(XMLText.escape(root.href(isCollection: rootIsCollection)))</D:href></D:lockroot>"
        return xml + "</D:activelock>"
    }
}
