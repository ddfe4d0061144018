import Foundation
import SandboxCore

/// One item evicted by ``SandboxHome/purge(bytes:)``.
public struct PurgedItem: Sendable, Hashable, Codable {
    /// Whose container held the item: an app's, or an App Group's (JSON: `app` or `group`).
    public var owner: PurgeOwner
    /// The path inside that container.
    public var path: String
    /// Bytes of storage its removal released (0 for a file with other hard links).
    public var bytes: Int64
    /// When it was last used (the later of access and modification).
    public var lastUsed: Date

    /// The app whose container held the item; `nil` for an App Group's container.
    public var app: AppIdentifier? {
        if case .app(let app) = owner { app } else { nil }
    }

    /// An item evicted from `owner`'s container.
    public init(owner: PurgeOwner, path: String, bytes: Int64, lastUsed: Date) {
        self.owner = owner
        self.path = path
        self.bytes = bytes
        self.lastUsed = lastUsed
    }

    private enum CodingKeys: String, CodingKey {
        case app, group, path, bytes, lastUsed
    }

    /// Decodes an item: `app` or `group` names its owner.
    ///
    /// - Throws: `DecodingError` when neither is there, or a value is malformed.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        if let group = try values.decodeIfPresent(AppGroupIdentifier.self, forKey: .group) {
            owner = .group(group)
        } else {
            owner = .app(try values.decode(AppIdentifier.self, forKey: .app))
        }
        path = try values.decode(String.self, forKey: .path)
        bytes = try values.decode(Int64.self, forKey: .bytes)
        lastUsed = try values.decode(Date.self, forKey: .lastUsed)
    }

    /// Encodes the item: an app's as it always was (`app`, `path`, `bytes`, `lastUsed`), a
    /// group's with `group` in place of `app`.
    ///
    /// - Throws: the encoder's `EncodingError`.
    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        switch owner {
        case .app(let app): try values.encode(app, forKey: .app)
        case .group(let group): try values.encode(group, forKey: .group)
        }
        try values.encode(path, forKey: .path)
        try values.encode(bytes, forKey: .bytes)
        try values.encode(lastUsed, forKey: .lastUsed)
    }
}

/// What ``SandboxHome/purge(bytes:)`` did.
public struct PurgeReport: Sendable, Hashable, Codable {
    /// The amount asked for, or `nil` for "everything purgeable".
    public var requestedBytes: Int64?
    /// Storage released, in bytes (allocated blocks of the removed files).
    public var freedBytes: Int64
    /// The evicted files, in eviction order.
    public var items: [PurgedItem]
    /// Apps whose `tmp/` or `Library/Caches/` could not be purged (items evicted before the
    /// failure stay evicted), with the reason.
    public var skipped: [SkippedApp]
    /// App Groups whose `Library/Caches/` could not be purged, with the reason; `nil` when none
    /// (so that a report without groups reads as before).
    public var skippedGroups: [SkippedGroup]?
}

extension SandboxHome {
    /// The directories purging evicts from, in order.
    private static let purgeable: [ContainerDirectory] = [.tmp, .caches]

    /// Frees storage as iOS does when space runs low: evicts the contents of every container's
    /// `tmp/`, then of `Library/Caches/` (the apps' and the App Groups'), least recently used
    /// first, until at least `bytes` have been freed. Nothing else is ever touched, and nothing a
    /// live user of the container declared held (``ContainerPresenter/hold(_:)``: a download being
    /// staged, a file being written; a member's, for a group's container:
    /// ``AppGroupIdentifier/heldPath(_:)``).
    ///
    /// A container that cannot be processed (a purgeable directory replaced by a link, say: it is
    /// never followed, see ``Container/locate(_:)``) is skipped and named in
    /// ``PurgeReport/skipped``; the others are still purged.
    ///
    /// - Parameter bytes: how much to free; `nil` evicts everything purgeable.
    /// - Returns: what was evicted and how much storage that released; when less could be freed
    ///   than asked, ``PurgeReport/freedBytes`` says how much.
    /// - Throws: file-system errors listing the installed apps.
    @discardableResult
    public func purge(bytes: Int64? = nil) throws(SandboxError) -> PurgeReport {
        var report = PurgeReport(requestedBytes: bytes, freedBytes: 0, items: [], skipped: [])
        let opened = try openContainers()
        var skipped: [PurgeOwner: SandboxError] = [:]
        var groupRoots: [PurgeOwner: ConfinedRoot] = [:]
        for (group, result) in try groupCaches() {
            switch result {
            case .success(let root?): groupRoots[.group(group)] = root
            case .success(nil): continue
            case .failure(let error): skipped[.group(group)] = error
            }
        }
        // What the live users declared held (a download being staged, a file being written):
        // never evicted.
        var held: [PurgeOwner: [String]] = [:]
        for container in opened.containers {
            held[.app(container.identifier)] = Array(try heldPaths(of: container.identifier))
        }
        for case .group(let group) in groupRoots.keys { held[.group(group)] = try heldPaths(inGroup: group) }
        directories: for directory in Self.purgeable {
            var candidates: [(owner: PurgeOwner, root: ConfinedRoot, base: ContainerPath, entry: DirectoryEntry)] = []
            var sources: [(owner: PurgeOwner, root: ConfinedRoot, base: () throws(SandboxError) -> ContainerPath?)] =
                opened.containers.map { container in
                    (
                        .app(container.identifier), container.root,
                        { () throws(SandboxError) in try container.locate(directory) }
                    )
                }
            if directory == .caches {
                for (owner, root) in groupRoots.sorted(by: { $0.key < $1.key }) {
                    sources.append((owner, root, { AppGroupContainer.caches }))
                }
            }
            for source in sources where skipped[source.owner] == nil {
                do throws(SandboxError) {
                    guard let base = try source.base() else { continue }
                    // A folder nested too deeply for paths is evicted whole, by descriptors.
                    try source.root.enumerate(
                        at: base, recursive: true, prefetchingAttributes: true, stoppingAtPathLimit: true
                    ) { entry throws(SandboxError) in
                        if entry.type != .directory || entry.contentsBeyondPathLimit {
                            candidates.append((source.owner, source.root, base, entry))
                        }
                    }
                } catch {
                    skipped[source.owner] = error
                }
            }
            candidates.sort {
                ($0.entry.attributes?.lastUsedDate ?? .distantPast)
                    < ($1.entry.attributes?.lastUsedDate ?? .distantPast)
            }
            for (owner, root, base, entry) in candidates where skipped[owner] == nil {
                if let bytes, report.freedBytes >= bytes { break directories }
                if Self.isHeld(entry.path, held[owner] ?? []) { continue }
                do throws(SandboxError) {
                    let whole =
                        entry.contentsBeyondPathLimit
                        ? try root.recursiveSize(at: entry.path)?.allocatedBytes : nil
                    guard try root.removeItem(at: entry.path, recursively: entry.contentsBeyondPathLimit) > 0
                    else { continue }
                    let attributes = entry.attributes
                    let freed = whole ?? attributes.map { $0.linkCount <= 1 ? $0.allocatedSize : 0 } ?? 0
                    report.freedBytes += freed
                    report.items.append(
                        PurgedItem(
                            owner: owner, path: entry.path.description, bytes: freed,
                            lastUsed: attributes?.lastUsedDate ?? .distantPast))
                    try removeEmptyParents(of: entry.path, below: base, in: root)
                } catch {
                    skipped[owner] = error
                }
            }
        }
        var apps = opened.skipped
        var groups: [SkippedGroup] = []
        for (owner, error) in skipped.sorted(by: { $0.key < $1.key }) {
            switch owner {
            case .app(let app): apps.append(SkippedApp(app: app, error: error))
            case .group(let group): groups.append(SkippedGroup(group: group, error: error))
            }
        }
        report.skipped = apps.sorted { $0.app < $1.app }
        report.skippedGroups = groups.isEmpty ? nil : groups
        return report
    }

    /// Whether evicting `path` would remove a held path: it is one, lies beneath one, or (a
    /// folder evicted whole) holds one.
    static func isHeld(_ path: ContainerPath, _ held: [String]) -> Bool {
        let item = path.description
        return held.contains { held in
            held == item || held.hasPrefix(item + "/") || item.hasPrefix(held + "/")
        }
    }

    /// Bytes that ``purge(bytes:)`` could free: all of `tmp/` and `Library/Caches/`, and the apps
    /// that could not be measured.
    private func measurePurgeable() throws(SandboxError) -> (bytes: Int64, skipped: [SkippedApp]) {
        var total: Int64 = 0
        let skipped = try forEachContainer { container throws(SandboxError) in
            var bytes: Int64 = 0
            for directory in Self.purgeable {
                guard let path = try container.locate(directory), let size = try container.root.recursiveSize(at: path)
                else { continue }
                bytes += size.allocatedBytes - (try container.root.attributes(at: path)?.allocatedSize ?? 0)
            }
            total += bytes  // only whole containers count
        }
        return (total, skipped)
    }

    /// The device's storage: the volume's values plus what purging could add, and each App Group
    /// container's size (``StorageValues/groups``).
    ///
    /// A container that cannot be measured is left out of ``StorageValues/purgeableBytes`` and
    /// named in ``StorageValues/skipped`` (a group's in ``StorageValues/skippedGroups``).
    ///
    /// - Throws: file-system errors reading the volume or listing the installed apps.
    public func storageValues() throws(SandboxError) -> StorageValues {
        let volume = try root.volumeValues()
        let purgeable = try measurePurgeable()
        let groups = try measureGroups()
        let purgeableBytes = purgeable.bytes + groups.groups.reduce(0) { $0 + $1.purgeableBytes }
        return StorageValues(
            volume: volume,
            purgeableBytes: purgeableBytes,
            availableForImportantUsage: volume.availableBytes + purgeableBytes,
            skipped: purgeable.skipped,
            groups: groups.groups,
            skippedGroups: groups.skipped.isEmpty ? nil : groups.skipped
        )
    }

    /// Removes directories left empty by an eviction, up to (not including) `base`.
    private func removeEmptyParents(
        of path: ContainerPath, below base: ContainerPath, in root: ConfinedRoot
    ) throws(SandboxError) {
        var directory = path.parent
        while directory.names.count > base.names.count {
            do throws(SandboxError) {
                try root.removeItem(at: directory)
            } catch  where error.code == .directoryNotEmpty {
                return
            }
            directory = directory.parent
        }
    }
}

/// Storage values of the device (iOS `volumeAvailableCapacityForImportantUsage` and friends).
public struct StorageValues: Sendable, Hashable, Codable {
    /// The volume the home is on: its capacity and free and available bytes and inodes.
    public var volume: VolumeValues
    /// Bytes held in `tmp/` and `Library/Caches/` of all containers (the App Groups' included).
    public var purgeableBytes: Int64
    /// Available bytes plus purgeable ones: what an important write could get.
    public var availableForImportantUsage: Int64
    /// Apps whose purgeable directories could not be measured (left out of the counts), with the reason.
    public var skipped: [SkippedApp]
    /// The App Group containers on the device, sorted by group.
    public var groups: [GroupStorage]
    /// App Groups whose containers could not be measured (left out), with the reason; `nil` when none.
    public var skippedGroups: [SkippedGroup]?
}
