import Sandbox

/// Exit statuses, from `sysexits.h` where one fits.
package enum ExitStatus {
    package static let failure: Int32 = 1
    /// EX_USAGE: the command line was wrong (a bad identifier or path is the user's to fix).
    package static let usage: Int32 = 64

    /// The codes, of any layer, that mean the command line itself was wrong.
    private static let usageCodes: Set<String> = [
        "invalid-app-identifier", "invalid-path", "invalid-argument", "name-too-long",
        "invalid-name", "invalid-value", "invalid-url", "invalid-resume-data",
    ]

    package static func of(_ error: SandboxError) -> Int32 {
        usageCodes.contains(error.code.rawValue) ? usage : failure
    }
}
