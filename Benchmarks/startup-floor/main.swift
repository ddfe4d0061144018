// The floor under `sandbox list`'s start-up: a Swift program linked as `sandbox` is (static runtime,
// lld, packed relative relocations) that lists the folder of app data containers with Glibc alone —
// no Foundation, no argument parser, none of our modules. sandbox-bundle-benchmark times it against
// `ls` beside `sandbox list` (BENCHMARKS.md, issue 16).
import Glibc
import StartupFloorListing

guard let names = containerNames() else {
    let message = "startup-floor: cannot open $SANDBOX_HOME/Containers/Data (errno \(errno))\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(1)
}
for name in names { print(name) }
