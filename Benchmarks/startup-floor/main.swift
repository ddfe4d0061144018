// The floor under `sandbox list`'s start-up: a Swift program linked as `sandbox` is (static runtime,
// lld, packed relative relocations) that lists the folder of app data containers with Glibc alone —
// no Foundation, no argument parser, none of our modules. sandbox-bundle-benchmark times it against
// `ls` beside `sandbox list` (BENCHMARKS.md, issue 16).
import Glibc

let home = getenv("SANDBOX_HOME").map { String(cString: $0) } ?? "."
guard let folder = opendir(home + "/Containers/Data") else {
    let message = "startup-floor: cannot open \(home)/Containers/Data (errno \(errno))\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(1)
}
var names: [String] = []
while let entry = readdir(folder) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    if !name.hasPrefix(".") { names.append(name) }
}
closedir(folder)
for name in names.sorted() { print(name) }
