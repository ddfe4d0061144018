import Sandbox
import SandboxCore
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
        let dataProtection = DataProtection(home: container.home)
        return try deliver(named: hostFile) {
            (path) throws(SandboxError) in
            try dataProtection.importFile(
                fromHost: hostFile, to: path, in: root, options: [.atomic, .durable, .withoutOverwriting])
        }
    }

    /// Delivers a document whose bytes come a piece at a time — `makePieces` gives the function
    /// that returns the next piece (`nil`: no more) — into `Documents/Inbox`, as
    /// ``deliver(hostFile:)`` delivers a host file: named `name` (its last component; numbered when
    /// taken), published atomically and durably, sealed with the Inbox's class if it has one. Only
    /// one piece is held at a time, and nothing is written outside the container. `makePieces` is
    /// called again only when another delivery took the name as this one was written.
    ///
    /// - Returns: the delivered item's path.
    /// - Throws: what the pieces throw (nothing is delivered); as ``deliver(hostFile:)`` otherwise.
    @discardableResult
    public func deliver(
        named name: String,
        pieces makePieces: () throws(SandboxError) -> () throws(SandboxError) -> [UInt8]?
    ) throws(SandboxError) -> ContainerPath {
        let dataProtection = DataProtection(home: container.home)
        return try deliver(named: name) { (path) throws(SandboxError) in
            let next = try makePieces()
            let options: WriteOptions = [.atomic, .durable, .withoutOverwriting]
            guard let protection = try dataProtection.defaultProtection(forDirectoryAt: Self.path, in: root) else {
                try root.writeFile(at: path, options: options) { (fd) throws(SandboxError) in
                    while let piece = try next() {
                        try piece.withBytes { (buffer) throws(SandboxError) in
                            try FullWrite.write(buffer, to: fd, path: path.description)
                        }
                    }
                }
                return
            }
            var piece: [UInt8] = []
            var offset = 0
            try dataProtection.writeSealed(protection, to: path, in: root, options: options) {
                (buffer) throws(SandboxError) -> Int in
                while offset == piece.count {
                    guard let more = try next() else { return 0 }
                    (piece, offset) = (more, 0)
                }
                let count = min(buffer.count, piece.count - offset)
                UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]).copyBytes(
                    from: piece[offset..<offset + count])
                offset += count
                return count
            }
        }
    }

    /// Writes the item with `write` at the first free name numbered from `name`'s last
    /// component (a leading `.` dropped; `Document` when nothing is left). A name taken is
    /// skipped before anything is written; one taken while the item was written is tried again
    /// under the next number.
    private func deliver(
        named name: String, _ write: (ContainerPath) throws(SandboxError) -> Void
    ) throws(SandboxError) -> ContainerPath {
        let lastComponent = name.split(separator: "/").last.map(String.init) ?? ""
        let trimmed = String(lastComponent.drop { $0 == "." })
        let name = try FileName(trimmed.isEmpty ? "Document" : trimmed)
        try root.createDirectory(at: Self.path, withIntermediateDirectories: true)
        for number in 1...Self.maximumNameAttempts {
            let path = Self.path.appending(Self.numbered(name, number))
            guard try root.attributes(at: path, followingSymlink: false) == nil else { continue }
            do throws(SandboxError) {
                try write(path)
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
