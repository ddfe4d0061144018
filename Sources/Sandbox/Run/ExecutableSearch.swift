import Glibc
import SandboxCore
import SystemPackage

/// Finds the program a command names, as a shell does, and the executables that ship beside this
/// one (`sandboxd`, `sandbox-extras`).
package enum ExecutableSearch {
    /// `name` itself when it holds a `/` (a relative one is then resolved by the child, from the
    /// home); otherwise the first executable regular file `<dir>/name` over the folders of `path`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` (cause `execve`, `ENOENT`) when no
    ///   folder of `path` holds it.
    static func resolve(_ name: String, path: String) throws(SandboxError) -> String {
        if name.contains("/") { return name }
        for directory in path.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = directory + "/" + name
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        throw SandboxError(
            .notFound,
            "No program '\(name)' in PATH (\(path)). Give its full path, or one the sandbox can execute (the bundle, /usr, /bin).",
            path: name,
            cause: SystemCallFailure(systemCall: "execve", errno: .noSuchFileOrDirectory))
    }

    /// The path of `name` in the folder of the running executable (`/proc/self/exe`, links
    /// resolved), where `swift build` and installs put the executables of this package. Whether
    /// it exists is the caller's question.
    ///
    /// - Throws: the core's `readlink` error when `/proc/self/exe` cannot be read.
    package static func besideThisExecutable(_ name: String) throws(SandboxError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else {
            throw .systemCall("readlink", errno: Errno(rawValue: errno), path: "/proc/self/exe")
        }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return name }
        return path[..<slash] + "/" + name
    }
}
