import Glibc
import SandboxCore
import SystemPackage

/// Finds the program a command names, as a shell does.
enum ExecutableSearch {
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
}
