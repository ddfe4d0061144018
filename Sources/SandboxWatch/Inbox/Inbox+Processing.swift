extension Inbox {
    /// Hands every item in the Inbox to `handler` once, applying the disposition it returns: items
    /// left claimed by an earlier, interrupted pass first, then the items waiting. Call it at launch
    /// and on resume (or use ``processItems(isolation:_:)``, which also waits for new items).
    ///
    /// - Returns: what was handled, and what failed (those items stay claimed for the next launch).
    /// - Throws: ``/SandboxCore/SandboxError`` when the Inbox cannot be read or an item cannot be claimed, e.g.
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied``; handler errors are reported, not thrown.
    @discardableResult
    public func processPendingItems(
        _ handler: (InboxItem) throws -> InboxItem.Disposition
    ) throws(SandboxError) -> InboxReport {
        var report = InboxReport()
        for item in try claimItems() {
            do {
                try complete(item, handler(item))
                report.handled.append(item)
            } catch {
                report.failures.append(.init(item: item, error: error))
            }
        }
        try removeProcessingFolderIfEmpty()
        return report
    }

    /// Processes the Inbox at once, then again whenever items arrive, until the task is cancelled.
    ///
    /// The Inbox is watched before it is read, so an item that arrives while earlier ones are being
    /// handled is picked up by the next pass. Handler failures leave their item claimed for the next
    /// launch (see ``Inbox``) and processing goes on.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when the Inbox folder is removed while watched, the
    ///   errors of ``FolderMonitor/init(watching:in:configuration:logger:)``, and those of
    ///   ``processPendingItems(_:)``.
    public func processItems(
        isolation: isolated (any Actor)? = #isolation,
        _ handler: (InboxItem) async throws -> InboxItem.Disposition
    ) async throws(SandboxError) {
        try root.createDirectory(at: Self.path, withIntermediateDirectories: true)
        let monitor = try FolderMonitor(watching: Self.path, in: root, configuration: .init(recursive: false))
        defer { monitor.cancel() }
        try await pass(handler)
        for await event in monitor.events {
            switch event {
            case .added(let path, _), .ready(let path), .renamed(_, let path, _):
                guard path.lastComponent?.hasPrefix(".") == false else { continue }
                try await pass(handler)
            case .overflow:
                try await pass(handler)
            case .folderRemoved:
                throw SandboxError(
                    .notFound, "Documents/Inbox was removed while its items were being processed.",
                    path: Self.path.description)
            case .removed, .modified, .failed, .containerReplaced, .containerRemoved:
                continue
            }
        }
    }

    private func pass(
        isolation: isolated (any Actor)? = #isolation,
        _ handler: (InboxItem) async throws -> InboxItem.Disposition
    ) async throws(SandboxError) {
        for item in try claimItems() {
            do {
                try complete(item, await handler(item))
            } catch {
                continue  // left claimed: offered again at the next launch
            }
        }
        try removeProcessingFolderIfEmpty()
    }

    // MARK: - Claiming and completing

    /// Items claimed before (by a pass that did not finish), then the waiting items, claimed now.
    func claimItems() throws(SandboxError) -> [InboxItem] {
        var items: [InboxItem] = []
        for entry in try entries(of: processingPath) {
            items.append(try item(at: entry.path))
        }
        let entries = try entries(of: Self.path)
        guard !entries.isEmpty else { return items }
        for entry in entries where WriterProbe.probe(entry.path, in: root, logger: logger) == .noWriters {
            if let claimed = try claim(entry.fileName) { items.append(claimed) }
        }
        return items
    }

    /// Renames `Inbox/name` into the processing folder; `nil` when another processor got it first.
    /// Names are used byte for byte: an item whose name is not UTF-8 is claimed like any other.
    private func claim(_ name: FileName) throws(SandboxError) -> InboxItem? {
        let source = Self.path.appending(name)
        for attempt in 1...Self.maximumNameAttempts {
            let destination = processingPath.appending(Self.numbered(name, attempt))
            do throws(SandboxError) {
                try root.createDirectory(at: processingPath, withIntermediateDirectories: true)
                try root.moveItem(from: source, to: destination)
                return try item(at: destination, deliveredAs: name)
            } catch  where error.code == .alreadyExists {
                continue  // a leftover of the same name is waiting: claim under another
            } catch  where error.code == .notFound {
                // Gone: claimed elsewhere.
                guard try root.attributes(at: source, followingSymlink: false) != nil else { return nil }
                continue  // the processing folder was removed under us: make it again
            }
        }
        return nil
    }

    /// The item at `path`, named as it was delivered (its name in the processing folder by default).
    private func item(at path: ContainerPath, deliveredAs name: FileName? = nil) throws(SandboxError) -> InboxItem {
        let attributes = try root.attributes(at: path, followingSymlink: false)
        let identifier = attributes.map { "\($0.device):\($0.inode)" } ?? path.description
        let fileName = name ?? path.lastName ?? FileName.parentReference
        return InboxItem(fileName: fileName, path: path, identifier: identifier)
    }

    /// Applies a disposition.
    func complete(_ item: InboxItem, _ disposition: InboxItem.Disposition) throws(SandboxError) {
        switch disposition {
        case .move(let destination):
            try container.checkPolicy(allowing: .create, at: destination)
            try root.moveItem(from: item.path, to: destination)
        case .delete:
            try root.removeItem(at: item.path, recursively: true)
        }
    }

    /// Keeps the Inbox clean once everything is handled; another processor's claims keep it.
    private func removeProcessingFolderIfEmpty() throws(SandboxError) {
        do throws(SandboxError) {
            try root.removeItem(at: processingPath)
        } catch  where error.code == .directoryNotEmpty || error.code == .notFound {
            return
        }
    }
}
