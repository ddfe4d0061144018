import Sandbox
import SandboxStore

extension FolderZip {
    /// Refuses, before a byte of the archive is sent, a folder that holds a protected file the
    /// device cannot open now (its class key is locked), so that the page's ZIP answers as its
    /// download does — 403 and a message — rather than with an archive cut short. Only while a
    /// class is locked is the folder walked (on the I/O engine), reading the header of each file
    /// large enough to be protected; a file locked after this check still cuts the archive short.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/forbidden`` naming the first such file; ``/SandboxCore/SandboxError`` for a
    ///   file-system failure.
    static func requireReadable(_ folder: SharePath, methods: DAVMethods) async throws(SandboxError) {
        guard let dataProtection = methods.dataProtection else { return }
        var locked: Set<ProtectionClass> = []
        do throws(SandboxError) {
            for protection in ProtectionClass.allCases where try !dataProtection.isAvailable(protection) {
                locked.insert(protection)
            }
        } catch {
            throw .dataProtection(
                error, path: folder, doing: "archive",
                lockedMessage: "'\(folder)' cannot be archived while the device is locked.")
        }
        guard !locked.isEmpty else { return }
        let classes = locked
        let found: SharePath?
        do {
            found = try await IOEngine.shared.run { () throws -> SharePath? in
                try firstFile(in: folder, of: classes, methods: methods, dataProtection: dataProtection)
            }
        } catch let error as SandboxError where error.code == .interrupted {
            // The engine stopped, or the request was cancelled.
            throw .fileSystem(error, path: folder, doing: "archive")
        } catch let error as SandboxError {
            throw error  // the handler's own, already answered
        } catch {
            throw SandboxError(.internalError, "Could not archive '\(folder)': \(error).", path: folder.description)
        }
        if let found {
            throw SandboxError(
                .forbidden,
                "'\(folder)' holds '\(found)', which is protected, and the device is locked: unlock the device and download the folder again; nothing was sent.",
                path: found.description)
        }
    }

    /// The first file the archive of `folder` would hold that is protected with one of `classes`.
    private static func firstFile(
        in folder: SharePath, of classes: Set<ProtectionClass>, methods: DAVMethods, dataProtection: DataProtection
    ) throws(SandboxError) -> SharePath? {
        var folders = [folder]
        while let next = folders.popLast() {
            for item in try methods.children(of: next) {
                if item.isCollection {
                    folders.append(item.path)
                    continue
                }
                guard item.attributes.size >= DataProtection.smallestProtectedFileSize else { continue }
                do throws(SandboxError) {
                    if let protection = try dataProtection.protectionClass(
                        of: item.path.containerPath, in: methods.documents), classes.contains(protection)
                    {
                        return item.path
                    }
                } catch {
                    // Gone meanwhile, or damaged: the archive itself leaves it out or fails on it.
                    continue
                }
            }
        }
        return nil
    }
}
