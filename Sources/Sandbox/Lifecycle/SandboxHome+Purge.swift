import Foundation
import SandboxCore

/// One item evicted by ``SandboxHome/purge(bytes:)``.
public struct PurgedItem: Sendable, Hashable, Codable {
    public var app: AppIdentifier
    /// The path inside the app's container.
    public var path: String
    /// Bytes of storage its removal released (0 for a file with other hard links).
    public var bytes: Int64
    /// When it was last used (the later of access and modification).
    public var lastUsed: Date
}

/// What ``SandboxHome/purge(bytes:)`` did.
public struct PurgeReport: Sendable, Hashable, Codable {
    /// The amount asked for, or `nil` for "everything purgeable".
    public var requestedBytes: Int64?
    /// Storage released, in bytes (allocated blocks of the removed files).
    public var freedBytes: Int64
    /// The evicted files, in eviction order.
    public var items: [PurgedItem]
}

extension SandboxHome {
    /// Frees storage as iOS does when space runs low: evicts the contents of every container's
    /// `tmp/`, then of `Library/Caches/`, least recently used first, until at least `bytes` have
    /// been freed. Nothing else is ever touched.
    ///
    /// - Parameter bytes: how much to free; `nil` evicts everything purgeable.
    /// - Returns: what was evicted and how much storage that released; when less could be freed
    ///   than asked, ``PurgeReport/freedBytes`` says how much.
    /// - Throws: file-system errors; items evicted before the failure stay evicted.
    @discardableResult
    public func purge(bytes: Int64? = nil) throws(SandboxError) -> PurgeReport {
        var report = PurgeReport(requestedBytes: bytes, freedBytes: 0, items: [])
        let containers = try containers()
        for directory in [ContainerDirectory.tmp, .caches] {
            guard let base = directory.path else { continue }
            var candidates: [(container: Container, entry: DirectoryEntry)] = []
            for container in containers where try container.root.directoryExists(at: base) {
                try container.root.enumerate(at: base, recursive: true, prefetchingAttributes: true) { entry throws(SandboxError) in
                    if entry.type != .directory { candidates.append((container, entry)) }
                }
            }
            candidates.sort { ($0.entry.attributes?.lastUsedDate ?? .distantPast) < ($1.entry.attributes?.lastUsedDate ?? .distantPast) }
            for (container, entry) in candidates {
                if let bytes, report.freedBytes >= bytes { return report }
                guard try container.root.removeItem(at: entry.path) > 0 else { continue }
                let attributes = entry.attributes
                let freed = attributes.map { $0.linkCount <= 1 ? $0.allocatedSize : 0 } ?? 0
                report.freedBytes += freed
                report.items.append(PurgedItem(app: container.identifier, path: entry.path.description, bytes: freed,
                                               lastUsed: attributes?.lastUsedDate ?? .distantPast))
                try removeEmptyParents(of: entry.path, below: base, in: container.root)
            }
        }
        return report
    }

    /// Bytes that ``purge(bytes:)`` could free: all of `tmp/` and `Library/Caches/`.
    public func purgeableBytes() throws(SandboxError) -> Int64 {
        var total: Int64 = 0
        for container in try containers() {
            for directory in [ContainerDirectory.tmp, .caches] {
                guard let path = directory.path, let size = try container.root.recursiveSize(at: path) else { continue }
                total += size.allocatedBytes - (try container.root.attributes(at: path)?.allocatedSize ?? 0)
            }
        }
        return total
    }

    /// The device's storage: the volume's values plus what purging could add.
    public func storageValues() throws(SandboxError) -> StorageValues {
        let volume = try root.volumeValues()
        let purgeable = try purgeableBytes()
        return StorageValues(volume: volume, purgeableBytes: purgeable, availableForImportantUsage: volume.availableBytes + purgeable)
    }

    /// Removes directories left empty by an eviction, up to (not including) `base`.
    private func removeEmptyParents(of path: ContainerPath, below base: ContainerPath, in root: ConfinedRoot) throws(SandboxError) {
        var directory = path.parent
        while directory.components.count > base.components.count {
            do throws(SandboxError) {
                try root.removeItem(at: directory)
            } catch where error.code == .directoryNotEmpty {
                return
            }
            directory = directory.parent
        }
    }
}

/// Storage values of the device (iOS `volumeAvailableCapacityForImportantUsage` and friends).
public struct StorageValues: Sendable, Hashable, Codable {
    public var volume: VolumeValues
    /// Bytes held in `tmp/` and `Library/Caches/` of all containers.
    public var purgeableBytes: Int64
    /// Available bytes plus purgeable ones: what an important write could get.
    public var availableForImportantUsage: Int64
}
