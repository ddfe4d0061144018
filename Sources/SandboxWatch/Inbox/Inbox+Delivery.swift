import Sandbox
import SandboxStore

extension Inbox {
    /// Delivers a document from the host into `Documents/Inbox`, the way another app's "Open In…"
    /// does: copied atomically and durably (the name appears only when the copy is complete), under
    /// a new name when the name is taken (`report.pdf`, then `report 2.pdf`, `report 3.pdf`, …).
    /// A leading `.` is dropped from the name, so the item is not mistaken for a sender's temporary.
    /// An Inbox with a default protection class gets the item sealed with it
    /// (`DataProtection.importFile(fromHost:to:in:options:)` of SandboxStore), never in the clear.
    ///
    /// - Returns: the delivered item's path, e.g. `Documents/Inbox/report 2.pdf`.
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` for a missing host file,
    ///   ``/SandboxCore/SandboxError/Code/isADirectory`` for a folder,
    ///   ``/SandboxCore/SandboxError/Code/noSpace``, `protected-data-unavailable` while the Inbox's
    ///   class is locked (nothing delivered), and the other errors of
    ///   ``/SandboxCore/ConfinedRoot/importFile(fromHost:to:options:)``.
    @discardableResult
    public func deliver(hostFile: String) throws(SandboxError) -> ContainerPath {
        let lastComponent = hostFile.split(separator: "/").last.map(String.init) ?? ""
        let trimmed = String(lastComponent.drop { $0 == "." })
        let name = try FileName(trimmed.isEmpty ? "Document" : trimmed)
        try root.createDirectory(at: Self.path, withIntermediateDirectories: true)
        let dataProtection = DataProtection(home: container.home)
        for number in 1...Self.maximumNameAttempts {
            let path = Self.path.appending(Self.numbered(name, number))
            do throws(SandboxError) {
                try dataProtection.importFile(
                    fromHost: hostFile, to: path, in: root, options: [.atomic, .durable, .withoutOverwriting])
                return path
            } catch  where error.code == .alreadyExists {
                continue
            }
        }
        throw SandboxError(
            .alreadyExists,
            "The Inbox already holds \(Self.maximumNameAttempts) items named like '\(name)'; process the Inbox first.",
            path: Self.path.description)
    }

    static let maximumNameAttempts = 10_000

    /// `report.pdf` numbered 2 is `report 2.pdf` (``/SandboxCore/FileName`` numbers names).
    static func numbered(_ name: FileName, _ number: Int) -> FileName {
        name.numbered(number)
    }
}
