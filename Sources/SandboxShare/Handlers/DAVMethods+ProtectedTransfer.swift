import Sandbox
import SandboxStore

extension DAVMethods {
    /// Moves or copies the item at `source` to `destination` (which is free): through Data
    /// Protection's ``/SandboxStore/DataProtection/moveItem(from:to:in:replacingExisting:)`` and
    /// ``/SandboxStore/DataProtection/copyItem(from:to:in:)`` in a container's share, as `sandbox
    /// mv` and `sandbox cp` do — a protected file keeps its class, a plain file into a folder with
    /// a default class is sealed with it (refused while that class is locked, nothing changed) —
    /// and through the Documents root otherwise.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/forbidden`` while the destination folder's class is locked;
    ///   the file system's failure.
    func transferItem(_ source: SharePath, to destination: SharePath, move: Bool) throws(SandboxError) {
        let action = move ? "move" : "copy"
        guard let dataProtection else {
            do throws(SandboxError) {
                if move {
                    try documents.moveItem(from: source.containerPath, to: destination.containerPath)
                } else {
                    try documents.copyItem(from: source.containerPath, to: destination.containerPath)
                }
            } catch {
                throw .fileSystem(error, path: source, doing: action)
            }
            return
        }
        do throws(SandboxError) {
            if move {
                try dataProtection.moveItem(from: source.containerPath, to: destination.containerPath, in: documents)
            } else {
                try dataProtection.copyItem(from: source.containerPath, to: destination.containerPath, in: documents)
            }
        } catch {
            throw .dataProtection(
                error, path: source, doing: action, lockedMessage: Self.lockedFolderMessage(destination, action))
        }
    }

    /// Refuses, before the item at `destination` is removed to be replaced, to copy or move the
    /// plain file `source` into a folder whose class cannot be written while the device is locked:
    /// Data Protection refuses that before writing anything, but the replaced item would be gone
    /// already. (``ProtectionClass/completeUnlessOpen`` files are sealed to a public key, locked
    /// or not.)
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/forbidden``; the failure of reading the classes.
    func requireSealable(_ source: SharePath, into destination: SharePath, move: Bool) throws(SandboxError) {
        guard let dataProtection else { return }
        let action = move ? "move" : "copy"
        let refused: Bool
        do throws(SandboxError) {
            guard
                let protection = try dataProtection.defaultProtection(
                    forDirectoryAt: destination.parent.containerPath, in: documents),
                protection != .completeUnlessOpen,
                try dataProtection.protectionClass(of: source.containerPath, in: documents) == nil
            else { return }
            refused = try !dataProtection.isAvailable(protection)
        } catch {
            throw .dataProtection(
                error, path: source, doing: action, lockedMessage: Self.lockedFolderMessage(destination, action))
        }
        if refused {
            throw SandboxError(.forbidden, Self.lockedFolderMessage(destination, action), path: source.description)
        }
    }

    private static func lockedFolderMessage(_ destination: SharePath, _ action: String) -> String {
        "'\(destination.parent)' is protected and the device is locked: unlock the device and \(action) again; nothing was changed."
    }
}
