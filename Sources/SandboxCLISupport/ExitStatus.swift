import Sandbox
import SandboxStore

/// Exit statuses, from `sysexits.h` where one fits, chosen by a failure's code in one table.
package enum ExitStatus {
    package static let failure: Int32 = 1
    /// EX_USAGE: the command line was wrong (a bad identifier or path is the user's to fix).
    package static let usage: Int32 = 64

    /// The status of each code that does not end a command with ``failure``: the codes, of the
    /// layers `sandbox` links, that mean the command line itself was wrong. `sandbox-extras` adds
    /// the downloads' (``merging(_:)``).
    package static let statuses: [SandboxError.Code: Int32] = [
        .invalidAppIdentifier: usage, .invalidPath: usage, .invalidArgument: usage, .nameTooLong: usage,
        .invalidName: usage, .invalidValue: usage, .invalidAppGroupIdentifier: usage,
    ]

    /// ``statuses`` with `more` added: the table of a binary that links more layers.
    package static func merging(_ more: [SandboxError.Code: Int32]) -> [SandboxError.Code: Int32] {
        statuses.merging(more) { _, added in added }
    }

    /// The status `error` ends a command with, by its code in `table`: ``failure`` for a code the
    /// table does not list.
    package static func of(_ error: SandboxError, in table: [SandboxError.Code: Int32] = statuses) -> Int32 {
        table[error.code] ?? failure
    }
}
