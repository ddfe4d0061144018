/// When a protected file can be read, as iOS's Data Protection classes (`NSFileProtection…`).
///
/// Each class has its own class key (see ``DataProtection``). With a passcode set, the keys of
/// every class but ``none`` are also wrapped by the passcode, so they exist in the clear only while
/// the device is unlocked (``DataProtection/unlock(passcode:)``), and only in the kernel's user
/// keyring, never on disk.
///
/// The class of a file is recorded in its header (authenticated) and as the extended attribute
/// ``attributeName``, which `sandbox stat` shows.
public enum ProtectionClass: String, Sendable, Hashable, Codable, CaseIterable {
    /// Readable and writable only while the device is unlocked (`NSFileProtectionComplete`).
    case complete = "complete"
    /// Writable at any time; readable only while unlocked (`NSFileProtectionCompleteUnlessOpen`).
    /// A file's key is agreed with the class's Curve25519 public key, which is always available;
    /// reading needs the class's private key.
    case completeUnlessOpen = "complete-unless-open"
    /// Readable from the first unlock after a restart until the next restart, locked or not
    /// (`NSFileProtectionCompleteUntilFirstUserAuthentication`).
    case untilFirstUserAuthentication = "until-first-user-authentication"
    /// Encrypted with a key derived from the device key alone: always readable on this device, never
    /// on another (`NSFileProtectionNone`).
    case none = "none"

    /// The extended attribute that records a file's class, and a directory's default class.
    public static let attributeName = "user.sandbox.protection"

    /// The class's number in a protected file's header.
    var code: UInt8 {
        switch self {
        case .complete: 1
        case .completeUnlessOpen: 2
        case .untilFirstUserAuthentication: 3
        case .none: 4
        }
    }

    init?(code: UInt8) {
        guard let match = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = match
    }

    /// Whether a passcode wraps the class key (every class but ``none``).
    var isPasscodeProtected: Bool { self != ProtectionClass.none }

    /// Whether locking the device forgets the class key.
    var isForgottenOnLock: Bool { self == .complete || self == .completeUnlessOpen }
}
