import SandboxCore

/// The storage an App Group's container takes, as `sandbox df` lists it.
public struct GroupStorage: Sendable, Hashable, Codable {
    /// The group.
    public var group: AppGroupIdentifier
    /// Bytes allocated to the whole container.
    public var allocatedBytes: Int64
    /// Of those, bytes in `Library/Caches/` that purging may evict.
    public var purgeableBytes: Int64
}

extension SandboxHome {
    /// Measures every group container (``groupContainerIdentifiers()``): a group that cannot be
    /// measured (its `Library/Caches` a link, say: never followed) is returned as skipped.
    func measureGroups() throws(SandboxError) -> (groups: [GroupStorage], skipped: [SkippedGroup]) {
        var groups: [GroupStorage] = []
        var skipped: [SkippedGroup] = []
        for (group, result) in try groupCaches() {
            do throws(SandboxError) {
                let caches: ConfinedRoot?
                switch result {
                case .success(let root): caches = root
                case .failure(let error): throw error
                }
                let opened = try caches == nil ? openGroupRoot(group, creating: false) : caches
                guard let root = opened else { continue }
                let total = try root.recursiveSize(at: .root)?.allocatedBytes ?? 0
                var purgeable: Int64 = 0
                if caches != nil, let size = try root.recursiveSize(at: AppGroupContainer.caches) {
                    purgeable =
                        size.allocatedBytes - (try root.attributes(at: AppGroupContainer.caches)?.allocatedSize ?? 0)
                }
                groups.append(GroupStorage(group: group, allocatedBytes: total, purgeableBytes: purgeable))
            } catch {
                skipped.append(SkippedGroup(group: group, error: error))
            }
        }
        return (groups, skipped)
    }
}
