import Foundation
import SandboxCore

/// One item evicted by ``SandboxHome/purge(bytes:)``.
public struct PurgedItem: Sendable, Hashable, Codable {
    /// The app whose container held the item.
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
    /// Apps whose `tmp/` or `Library/Caches/` could not be purged (items evicted before the
    /// failure stay evicted), with the reason.
    public var skipped: [SkippedApp]
}

extension SandboxHome {
    /// The directories purging evicts from, in order.
    private static let purgeable: [ContainerDirectory] = [.tmp, .caches]

    /// Frees storage as iOS does when space runs low: evicts the contents of every container's
    /// `tmp/`, then of `Library/Caches/`, least recently used first, until at least `bytes` have
    /// been freed. Nothing else is ever touched, and nothing a live user of the container declared
    /// held (``ContainerPresenter/hold(_:)``: a download being staged, a file being written).
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
        var skipped: [AppIdentifier: SkippedApp] = [:]
        for app in opened.skipped { skipped[app.app] = app }
        // What the apps' live users declared held (a download being staged, a file being
        // written): never evicted.
        var held: [AppIdentifier: [String]] = [:]
        for container in opened.containers {
            let paths = try heldPaths(of: container.identifier)
            if !paths.isEmpty { held[container.identifier] = Array(paths) }
        }
        directories: for directory in Self.purgeable {
            var candidates: [(container: Container, base: ContainerPath, entry: DirectoryEntry)] = []
            for container in opened.containers where skipped[container.identifier] == nil {
                do throws(SandboxError) {
                    guard let base = try container.locate(directory) else { continue }
                    // A folder nested too deeply for paths is evicted whole, by descriptors.
                    try container.root.enumerate(
                        at: base, recursive: true, prefetchingAttributes: true, stoppingAtPathLimit: true
                    ) { entry throws(SandboxError) in
                        if entry.type != .directory || entry.contentsBeyondPathLimit {
                            candidates.append((container, base, entry))
                        }
                    }
                } catch {
                    skipped[container.identifier] = SkippedApp(app: container.identifier, error: error)
                }
            }
            candidates.sort {
                ($0.entry.attributes?.lastUsedDate ?? .distantPast)
                    < ($1.entry.attributes?.lastUsedDate ?? .distantPast)
            }
            for (container, base, entry) in candidates where skipped[container.identifier] == nil {
                if let bytes, report.freedBytes >= bytes { break directories }
                if Self.isHeld(entry.path, held[container.identifier] ?? []) { continue }
                do throws(SandboxError) {
                    let whole =
                        entry.contentsBeyondPathLimit
                        ? try container.root.recursiveSize(at: entry.path)?.allocatedBytes : nil
                    guard try container.root.removeItem(at: entry.path, recursively: entry.contentsBeyondPathLimit) > 0
                    else { continue }
                    let attributes = entry.attributes
                    let freed = whole ?? attributes.map { $0.linkCount <= 1 ? $0.allocatedSize : 0 } ?? 0
                    report.freedBytes += freed
                    report.items.append(
                        PurgedItem(
                            app: container.identifier, path: entry.path.description, bytes: freed,
                            lastUsed: attributes?.lastUsedDate ?? .distantPast))
                    try removeEmptyParents(of: entry.path, below: base, in: container.root)
                } catch {
                    skipped[container.identifier] = SkippedApp(app: container.identifier, error: error)
                }
            }
        }
        report.skipped = skipped.values.sorted { $0.app < $1.app }
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

    /// The device's storage: the volume's values plus what purging could add.
    ///
    /// A container that cannot be measured is left out of ``StorageValues/purgeableBytes`` and
    /// named in ``StorageValues/skipped``.
    ///
    /// - Throws: file-system errors reading the volume or listing the installed apps.
    public func storageValues() throws(SandboxError) -> StorageValues {
        let volume = try root.volumeValues()
        let purgeable = try measurePurgeable()
        return StorageValues(
            volume: volume,
            purgeableBytes: purgeable.bytes,
            availableForImportantUsage: volume.availableBytes + purgeable.bytes,
            skipped: purgeable.skipped
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
    /// Bytes held in `tmp/` and `Library/Caches/` of all containers.
    public var purgeableBytes: Int64
    /// Available bytes plus purgeable ones: what an important write could get.
    public var availableForImportantUsage: Int64
    /// Apps whose purgeable directories could not be measured (left out of the counts), with the reason.
    public var skipped: [SkippedApp]
}
