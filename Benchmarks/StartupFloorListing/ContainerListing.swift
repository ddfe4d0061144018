// What both start-up floors do: list the folder of app data containers with Glibc alone.
import Glibc

/// The names in `$SANDBOX_HOME/Containers/Data` (hidden ones left out), sorted; `nil` when the
/// folder cannot be opened (`errno` says why).
public func containerNames() -> [String]? {
    let home = getenv("SANDBOX_HOME").map { String(cString: $0) } ?? "."
    guard let folder = opendir(home + "/Containers/Data") else { return nil }
    defer { closedir(folder) }
    var names: [String] = []
    while let entry = readdir(folder) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if !name.hasPrefix(".") { names.append(name) }
    }
    return names.sorted()
}
