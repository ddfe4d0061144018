import Testing

/// Tests that use real inotify and the file system. They run one at a time: they share the CPU,
/// the user's inotify instances and, for the overflow test, depend on the reader keeping up.
@Suite("Watching for real", .serialized)
struct WatcherTests {}
