import Foundation
import Glibc
import SandboxCore
import SystemPackage
import Testing

/// The type of the file system holding `path` (the longest mount point above it in mountinfo).
func fileSystemType(of path: String) -> String? {
    guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
    var best: (mountPoint: String, type: String)?
    for line in table.split(separator: "\n") {
        let fields = line.split(separator: " ").map(String.init)
        guard fields.count > 5, let separator = fields.firstIndex(of: "-"), separator + 1 < fields.count else {
            continue
        }
        let mountPoint = fields[4]
        let covers = mountPoint == "/" || path == mountPoint || path.hasPrefix(mountPoint + "/")
        if covers, mountPoint.count >= (best?.mountPoint.count ?? -1) {
            best = (mountPoint, fields[separator + 1])
        }
    }
    return best?.type
}

@Suite("Metadata")
struct MetadataTests {
    @Test("statx attributes of a file, a directory, a symlink and a FIFO", arguments: bothResolutions)
    func attributes(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f", "12345")
        try tmp.makeDirectory("d")
        try tmp.makeSymlink("l", to: "f")
        try tmp.makeSymlink("dangling", to: "missing")
        try #require(mkfifo(tmp.host("p"), 0o600) == 0)
        try #require(link(tmp.host("f"), tmp.host("hard")) == 0)
        let root = try tmp.root(resolution)
        let file = try #require(try root.attributes(at: cpath("f")))
        let host = try #require(TemporaryDirectory.hostLstat(tmp.host("f")))
        #expect(file.type == .regular)
        #expect(file.size == 5)
        #expect(file.inode == UInt64(host.st_ino))
        #expect(file.linkCount == 2)
        #expect(file.permissions.rawValue == host.st_mode & 0o7777)
        #expect(file.ownerID == host.st_uid)
        #expect(file.groupID == host.st_gid)
        #expect(file.allocatedSize == Int64(host.st_blocks) * 512)
        #expect(
            abs(
                file.modificationDate.timeIntervalSince1970
                    - (Double(host.st_mtim.tv_sec) + Double(host.st_mtim.tv_nsec) / 1e9)) < 1e-6)
        #expect(
            abs(
                file.statusChangeDate.timeIntervalSince1970
                    - (Double(host.st_ctim.tv_sec) + Double(host.st_ctim.tv_nsec) / 1e9)) < 1e-6)
        #expect(file.lastUsedDate == max(file.accessDate, file.modificationDate))
        // The same inode through a hard link and through a symlink.
        let hard = try #require(try root.attributes(at: cpath("hard")))
        #expect(hard.inode == file.inode && hard.device == file.device)
        #expect(try root.attributes(at: cpath("l"))?.inode == file.inode)
        let link = try #require(try root.attributes(at: cpath("l"), followingSymlink: false))
        #expect(link.type == .symlink)
        #expect(link.size == 1)
        #expect(link.inode != file.inode)
        #expect(try root.attributes(at: cpath("d"))?.type == .directory)
        #expect(try root.attributes(at: .root)?.inode == TemporaryDirectory.hostInode(tmp.container))
        #expect(try root.attributes(at: .root, followingSymlink: false)?.type == .directory)
        #expect(try root.attributes(at: cpath("p"))?.type == .fifo)
        #expect(try root.attributes(at: cpath("dangling")) == nil)
        #expect(try root.attributes(at: cpath("dangling"), followingSymlink: false)?.type == .symlink)
        #expect(try root.attributes(at: cpath("missing")) == nil)
        #expect(try root.attributes(at: cpath("missing/deeper")) == nil)
        #expect(try root.attributes(at: cpath("missing/deeper"), followingSymlink: false) == nil)
    }

    @Test("allocatedSize is st_blocks × 512, smaller than the size of a sparse file", arguments: bothResolutions)
    func sparseFile(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        let size: off_t = 16 << 20
        let fd = Glibc.open(tmp.host("sparse"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        try #require(ftruncate(fd, size) == 0)
        var byte: UInt8 = 0x7f
        try #require(pwrite(fd, &byte, 1, size - 1) == 1)
        Glibc.close(fd)
        let root = try tmp.root(resolution)
        let attributes = try #require(try root.attributes(at: cpath("sparse")))
        let host = try #require(TemporaryDirectory.hostLstat(tmp.host("sparse")))
        #expect(attributes.size == Int64(size))
        #expect(attributes.allocatedSize == Int64(host.st_blocks) * 512)
        #expect(attributes.allocatedSize < attributes.size)
        let total = try #require(try root.recursiveSize(at: .root))
        #expect(total.logicalBytes == Int64(size))
        #expect(total.allocatedBytes < total.logicalBytes)
        // A dense file of the same size is fully allocated.
        try root.writeContents(pseudoRandomBytes(1 << 20), to: cpath("dense"))
        let dense = try #require(try root.attributes(at: cpath("dense")))
        #expect(dense.allocatedSize >= dense.size)
    }

    @Test("creationDate is the birth time where the file system records one", arguments: bothResolutions)
    func creationDate(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        let before = Date()
        try tmp.makeFile("f")
        let after = Date()
        let root = try tmp.root(resolution)
        let attributes = try #require(try root.attributes(at: cpath("f")))
        let type = fileSystemType(of: tmp.container)
        if let type, ["ext4", "xfs", "btrfs"].contains(type) {
            #expect(attributes.creationDate != nil, "\(type) records birth times")
        }
        if let created = attributes.creationDate {
            #expect(
                created >= before.addingTimeInterval(-2) && created <= after.addingTimeInterval(2),
                "\(created) not in [\(before), \(after)]")
            // Changing the contents or the dates does not change the birth time.
            try root.setDates(modification: Date(timeIntervalSince1970: 86_400), at: cpath("f"))
            try root.writeContents(Array("more".utf8), to: cpath("f"), options: [])
            #expect(try root.attributes(at: cpath("f"))?.creationDate == created)
        }
    }

    @Test("setPermissions round trip", arguments: bothResolutions)
    func permissionsRoundTrip(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f")
        try tmp.makeDirectory("d")
        try tmp.makeSymlink("l", to: "f")
        let root = try tmp.root(resolution)
        for mode: mode_t in [0o600, 0o640, 0o755, 0o711, 0o400, 0o4755, 0o644] {
            try root.setPermissions(FilePermissions(rawValue: mode), at: cpath("f"))
            #expect(try root.attributes(at: cpath("f"))?.permissions.rawValue == mode)
            #expect(TemporaryDirectory.hostLstat(tmp.host("f")).map { $0.st_mode & 0o7777 } == mode)
        }
        for mode: mode_t in [0o700, 0o1777, 0o750, 0o755] {
            try root.setPermissions(FilePermissions(rawValue: mode), at: cpath("d"))
            #expect(try root.attributes(at: cpath("d"))?.permissions.rawValue == mode)
        }
        // Never through a symlink: refused, the target and the link unchanged.
        let linkMode = TemporaryDirectory.hostLstat(tmp.host("l"))?.st_mode
        expectError(.unsupported) { try root.setPermissions(FilePermissions(rawValue: 0o604), at: cpath("l")) }
        #expect(try root.attributes(at: cpath("f"))?.permissions.rawValue == 0o644)
        #expect(TemporaryDirectory.hostLstat(tmp.host("l"))?.st_mode == linkMode)
        expectError(.notFound) { try root.setPermissions(FilePermissions(rawValue: 0o600), at: cpath("missing")) }
    }

    @Test("setDates round trip", arguments: bothResolutions)
    func datesRoundTrip(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f")
        try tmp.makeDirectory("d")
        try tmp.makeSymlink("l", to: "f")
        let root = try tmp.root(resolution)
        let modification = Date(timeIntervalSince1970: 1_000_000_000.25)
        let access = Date(timeIntervalSince1970: 1_500_000_000.5)
        for path in ["f", "d"] {
            try root.setDates(modification: modification, access: access, at: cpath(path))
            let attributes = try #require(try root.attributes(at: cpath(path)))
            #expect(abs(attributes.modificationDate.timeIntervalSince(modification)) < 1e-6, "\(path)")
            #expect(abs(attributes.accessDate.timeIntervalSince(access)) < 1e-6, "\(path)")
            let host = try #require(TemporaryDirectory.hostLstat(tmp.host(path)))
            #expect(host.st_mtim.tv_sec == 1_000_000_000 && host.st_mtim.tv_nsec == 250_000_000)
            #expect(host.st_atim.tv_sec == 1_500_000_000 && host.st_atim.tv_nsec == 500_000_000)
        }
        // nil leaves a date as it is.
        let later = Date(timeIntervalSince1970: 1_700_000_000)
        try root.setDates(modification: later, at: cpath("f"))
        let onlyModification = try #require(try root.attributes(at: cpath("f")))
        #expect(onlyModification.modificationDate == later)
        #expect(abs(onlyModification.accessDate.timeIntervalSince(access)) < 1e-6)
        try root.setDates(access: later, at: cpath("f"))
        #expect(try root.attributes(at: cpath("f"))?.accessDate == later)
        #expect(try root.attributes(at: cpath("f"))?.modificationDate == later)
        // Before 1970 too.
        let old = Date(timeIntervalSince1970: -86_400.5)
        try root.setDates(modification: old, at: cpath("f"))
        let beforeEpoch = try #require(try root.attributes(at: cpath("f")))
        #expect(abs(beforeEpoch.modificationDate.timeIntervalSince(old)) < 1e-6)
        // Through a symlink: the target's dates.
        let linkTime = TemporaryDirectory.hostLstat(tmp.host("l"))?.st_mtim.tv_sec
        try root.setDates(modification: modification, at: cpath("l"))
        let target = try #require(try root.attributes(at: cpath("f")))
        #expect(abs(target.modificationDate.timeIntervalSince(modification)) < 1e-6)
        #expect(TemporaryDirectory.hostLstat(tmp.host("l"))?.st_mtim.tv_sec == linkTime)
        expectError(.notFound) { try root.setDates(modification: later, at: cpath("missing")) }
    }

    @Test("Excluded from backup: on, off, and carried by moves and copies", arguments: bothResolutions)
    func excludedFromBackup(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f")
        try tmp.makeDirectory("d")
        let root = try tmp.root(resolution)
        let firstAttempt = Result { () throws(SandboxError) in try root.setExcludedFromBackup(true, at: cpath("f")) }
        if case .failure(let error) = firstAttempt {
            // Only a file system without user xattrs may refuse, and then every call says so.
            #expect(error.code == .unsupported, "\(error)")
            expectError(.unsupported) { _ = try root.isExcludedFromBackup(at: cpath("f")) }
            return
        }
        for path in ["f", "d"] {
            let p = try cpath(path)
            if path == "d" {
                #expect(try !root.isExcludedFromBackup(at: p))
                try root.setExcludedFromBackup(true, at: p)
            }
            #expect(try root.isExcludedFromBackup(at: p), "\(path)")
            #expect(try root.extendedAttributeNames(at: p).contains("user.sandbox.excluded-from-backup"))
            try root.setExcludedFromBackup(true, at: p)  // idempotent
            #expect(try root.isExcludedFromBackup(at: p))
            try root.setExcludedFromBackup(false, at: p)
            #expect(try !root.isExcludedFromBackup(at: p))
            try root.setExcludedFromBackup(false, at: p)  // removing an absent flag is fine
            #expect(try !root.isExcludedFromBackup(at: p))
        }
        try root.setExcludedFromBackup(true, at: cpath("f"))
        try root.moveItem(from: cpath("f"), to: cpath("d/moved"))
        #expect(try root.isExcludedFromBackup(at: cpath("d/moved")))
        try root.copyItem(from: cpath("d/moved"), to: cpath("copied"))
        #expect(try root.isExcludedFromBackup(at: cpath("copied")))
        try root.writeContents(Array("plain".utf8), to: cpath("plain"))
        #expect(try !root.isExcludedFromBackup(at: cpath("plain")))
        expectError(.notFound) { _ = try root.isExcludedFromBackup(at: cpath("missing")) }
        expectError(.notFound) { try root.setExcludedFromBackup(true, at: cpath("missing")) }
    }

    @Test("Extended attributes round trip", arguments: bothResolutions)
    func extendedAttributes(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f")
        let root = try tmp.root(resolution)
        let path = try cpath("f")
        #expect(try root.extendedAttribute(named: "user.absent", at: path) == nil)
        let binary = pseudoRandomBytes(1000)
        try root.setExtendedAttribute(named: "user.binary", to: binary, at: path)
        try root.setExtendedAttribute(named: "user.empty", to: [], at: path)
        #expect(try root.extendedAttribute(named: "user.binary", at: path) == binary)
        #expect(try root.extendedAttribute(named: "user.empty", at: path) == [])
        #expect(Set(try root.extendedAttributeNames(at: path)).isSuperset(of: ["user.binary", "user.empty"]))
        try root.setExtendedAttribute(named: "user.binary", to: [1, 2], at: path)
        #expect(try root.extendedAttribute(named: "user.binary", at: path) == [1, 2])
        try root.removeExtendedAttribute(named: "user.binary", at: path)
        try root.removeExtendedAttribute(named: "user.binary", at: path)
        #expect(try root.extendedAttribute(named: "user.binary", at: path) == nil)
        #expect(!(try root.extendedAttributeNames(at: path)).contains("user.binary"))
        // The contents are untouched by all of it.
        #expect(try root.readContents(of: path) == Array("inside\n".utf8))
    }

    @Test("volumeValues are sane and match statvfs", arguments: bothResolutions)
    func volumeValues(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        let root = try tmp.root(resolution)
        let values = try root.volumeValues()
        #expect(values.capacity >= values.freeBytes)
        #expect(values.freeBytes >= values.availableBytes)
        #expect(values.capacity >= values.availableBytes)
        #expect(values.availableBytes > 0)
        #expect(values.totalNodes >= values.freeNodes)
        #expect(values.maximumNameLength == 255)
        #expect(!values.isReadOnly)
        var host = statvfs()
        try #require(statvfs(tmp.container, &host) == 0)
        #expect(values.capacity == Int64(host.f_blocks) * Int64(host.f_frsize))
        #expect(values.totalNodes == Int64(host.f_files))
        // A subroot is on the same volume.
        try tmp.makeDirectory("d")
        #expect(try root.openSubroot(at: cpath("d")).volumeValues().capacity == values.capacity)
    }
}
