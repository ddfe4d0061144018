import Sandbox
import SandboxStore
import SandboxTransfer

/// Exit statuses, from `sysexits.h` where one fits.
enum ExitStatus {
    static let failure: Int32 = 1
    /// EX_USAGE: the command line was wrong (a bad identifier or path is the user's to fix).
    static let usage: Int32 = 64

    static func of(_ error: SandboxError) -> Int32 {
        switch error.code {
        case .invalidAppIdentifier, .invalidPath, .invalidArgument, .nameTooLong: usage
        default: failure
        }
    }

    static func of(_ error: StoreError) -> Int32 {
        switch error.code {
        case .invalidName, .invalidValue, StoreError.Code(.invalidPath), StoreError.Code(.invalidAppIdentifier), StoreError.Code(.invalidArgument): usage
        default: failure
        }
    }

    static func of(_ error: TransferError) -> Int32 {
        switch error.code {
        case .invalidURL, .invalidArgument, .invalidResumeData: usage
        default: failure
        }
    }
}
