import Glibc
import Sandbox
import SandboxCLISupport
import SystemPackage

extension SandboxError.Code {
    /// An executable this one hands a command to is not where it should be.
    static let missingExecutable = SandboxError.Code("missing-executable")
}

/// `sandbox-extras`, the executable of the ``ExtraCommand``s, found beside this one (the folder of
/// `/proc/self/exe`), as git finds `git-<command>`.
enum ExtrasExecutable {
    /// The executable's file name.
    static let name = "sandbox-extras"

    /// Replaces this process with `sandbox-extras`, given the same arguments (`arguments[0]`
    /// included): standard input and output, the process id (so signals), the environment and the
    /// exit status are the ones this command would have had.
    ///
    /// - Throws: ``SandboxError/Code/missingExecutable`` (naming the path and how to build it) when
    ///   there is no such executable beside this one; the core's error for `readlink` or `execv`
    ///   otherwise.
    static func replaceProcess(for command: ExtraCommand, arguments: [String]) throws(SandboxError) -> Never {
        let path = try ExecutableSearch.besideThisExecutable(name)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        execv(path, argv)
        let failure = errno
        for pointer in argv { free(pointer) }
        guard failure == ENOENT || failure == ENOTDIR else {
            throw .systemCall("execv", errno: Errno(rawValue: failure), path: path)
        }
        throw SandboxError(
            .missingExecutable,
            "`sandbox \(command.name)` runs '\(path)', which does not exist: build it beside `sandbox` (`swift build -c release --product \(name)`, or `swift build` for every product) or install it there.",
            path: path)
    }
}
