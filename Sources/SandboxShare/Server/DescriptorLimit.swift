import Glibc

/// The process's limit on open descriptors (`RLIMIT_NOFILE`), which bounds how many connections
/// the server can hold at once.
enum DescriptorLimit {
    /// Raises the soft limit to the hard one (the usual soft limit, 1,024, is what a client
    /// without the code reached with idle connections) and returns the soft limit now in force;
    /// `nil` when it cannot be read. A limit that cannot be raised is left as it is: the
    /// connection limits are fitted to it.
    static func raiseToHard() -> Int? {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)  // RLIM_INFINITY, all ones, clamps to Int.max
    }
}
