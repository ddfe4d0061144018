import CSandboxShims
import Glibc
import Logging
import Sandbox
import SystemPackage

/// The members of a collection as a PROPFIND lists them, read one `getdents64` at a time, so that
/// a listing of any size is answered with flat memory: breadth first (a collection's members, then
/// those of each of its collections in the order they were met), and the same members
/// ``DAVMethods/children(of:)`` shows (no hidden names, symlinks, devices, names that are not
/// UTF-8 or that no request could name).
///
/// Each folder is opened beneath the shared folder; its members are described (`statx`) and their
/// dead properties read (`listxattrat`, or an open where the kernel lacks it) from the folder's
/// descriptor, never following a symlink: a link the app plants is left out as it always was,
/// and a member swapped for a link between the two is never followed. A folder renamed while it is listed is listed
/// to its end from its descriptor, under the name it had.
struct PropfindListing: ~Copyable {
    /// One member, valid only during the call that receives it.
    struct Member {
        let path: SharePath
        let isCollection: Bool
        /// Its `statx`, when the listing describes its members.
        let attributes: FileAttributes?
        /// The open folder it was listed from, and its name there.
        let folder: CInt
        let name: UnsafePointer<CChar>
        /// Why the members of this collection cannot be listed (a recursive listing only, which
        /// tries to open each collection as it meets it): it is reported alone, with its status.
        let unlisted: SandboxError?
    }

    private let documents: ConfinedRoot
    private let recursive: Bool
    private let describing: Bool
    private let logger: Logger
    private let reader = DirectoryReader()
    /// The collections still to list, from `nextFolder` on.
    private var folders: [SharePath] = []
    private var nextFolder = 0
    /// The folder being listed, -1 between folders.
    private var descriptor: CInt
    private var folder: SharePath
    /// Which members of `folder` the share hides.
    private var visibility: SharePath.MemberVisibility
    /// The members listed so far.
    private(set) var count = 0

    /// Opens the collection `root` to list its members (and, `recursive`, theirs), each described
    /// with its `statx` when `describing` (a count needs only the listing's types).
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` when `root` cannot be opened: the request's error.
    init(
        documents: ConfinedRoot, of root: SharePath, recursive: Bool, describing: Bool, logger: Logger
    ) throws(SandboxError) {
        self.documents = documents
        self.recursive = recursive
        self.describing = describing
        self.logger = logger
        do throws(SandboxError) {
            descriptor = try documents.openDirectory(root.containerPath, followFinalSymlink: false).release()
        } catch {
            throw .fileSystem(error, path: root, doing: "list")
        }
        folder = root
        visibility = SharePath.MemberVisibility(folder: root)
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Lists the next batch of members (one `getdents64`'s worth), calling `body` with each.
    ///
    /// - Returns: `false` once every member was listed.
    /// - Throws: ``/SandboxCore/SandboxError`` when a folder's listing fails midway, and what
    ///   `body` throws.
    mutating func next(_ body: (Member) throws(SandboxError) -> Void) throws(SandboxError) -> Bool {
        while descriptor < 0 {
            guard nextFolder < folders.count else { return false }
            let path = folders[nextFolder]
            nextFolder += 1
            if nextFolder >= 1024, nextFolder * 2 >= folders.count {
                folders.removeFirst(nextFolder)
                nextFolder = 0
            }
            do throws(SandboxError) {
                descriptor = try documents.openDirectory(path.containerPath, followFinalSymlink: false).release()
                folder = path
                visibility = SharePath.MemberVisibility(folder: path)
            } catch  where error.code == .notFound {
                continue  // removed since it was met
            } catch {
                logger.warning("PROPFIND: the members of '\(path)' could not be listed: \(error)")
            }
        }
        let fd = descriptor
        let parent = folder
        let visibility = self.visibility
        let documents = self.documents
        let describing = self.describing
        let recursive = self.recursive
        var found: [SharePath] = []
        var listed = 0
        let more: Bool
        do throws(SandboxError) {
            more = try reader.forEachEntryOfNextRead(of: fd, path: parent.description) {
                name, type throws(SandboxError) in
                guard
                    let member = try Self.member(
                        name, type: type, in: fd, parent, visibility, documents: documents,
                        describing: describing, recursive: recursive)
                else { return }
                listed += 1
                if recursive, member.isCollection, member.unlisted == nil { found.append(member.path) }
                try body(member)
            }
        } catch  where nextFolder > 0 {
            // A folder below the one named that fails midway (a member it may not describe): the
            // rest of the tree is still answered.
            logger.warning("PROPFIND: the listing of '\(parent)' ended early: \(error)")
            more = false
        }
        count += listed
        folders += found
        if !more {
            Glibc.close(descriptor)
            descriptor = -1
        }
        return true
    }

    /// The member `name` of the open folder `fd` (at `parent`), or `nil` when the share does not
    /// show it (or it vanished since the folder was read).
    private static func member(
        _ name: UnsafePointer<CChar>, type: UInt8, in fd: CInt, _ parent: SharePath,
        _ visibility: SharePath.MemberVisibility, documents: ConfinedRoot, describing: Bool, recursive: Bool
    ) throws(SandboxError) -> Member? {
        let regular = UInt8(DT_REG)
        let directory = UInt8(DT_DIR)
        guard type == regular || type == directory || type == UInt8(DT_UNKNOWN) else { return nil }
        // A name with a control character or a backslash is one no request could name again
        // (``SharePath/init(requestPath:)`` refuses it): not shown, like one that is not UTF-8.
        let bytes = UnsafeRawBufferPointer(start: name, count: strlen(name))
        guard SharePath.isValidName(bytes), let string = String(validatingCString: name) else { return nil }
        if visibility.hides(string) { return nil }
        let path = parent.appending(string)
        var isCollection = type == directory
        var attributes: FileAttributes?
        if describing || type == UInt8(DT_UNKNOWN) {
            do throws(SandboxError) {
                attributes = try ConfinedRoot.statx(fd, name, flags: CSB_AT_SYMLINK_NOFOLLOW, path: path.description)
            } catch  where error.code == .notFound {
                return nil  // removed since the folder was read
            } catch {
                throw .fileSystem(error, path: path, doing: "list")
            }
            guard let kind = attributes?.type, kind == .regular || kind == .directory else { return nil }
            isCollection = kind == .directory
        }
        var unlisted: SandboxError?
        if describing, recursive, isCollection {
            // Opened now, so that a collection whose members cannot be listed (a path too long for
            // Linux, no permission) is reported alone in its place; listed when its turn comes.
            do throws(SandboxError) {
                try documents.openDirectory(path.containerPath, followFinalSymlink: false).close()
            } catch  where error.code == .notFound {
            } catch {
                unlisted = .fileSystem(error, path: path, doing: "list")
            }
        }
        return Member(
            path: path, isCollection: isCollection, attributes: describing ? attributes : nil, folder: fd, name: name,
            unlisted: unlisted)
    }

    /// The dead properties of `member`, read from its folder without following a link
    /// (``DeadPropertyStore/MemberLookup``).
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` when its attributes cannot be listed or read.
    static func deadProperties(
        of member: Member, in store: DeadPropertyStore
    ) throws(SandboxError) -> [PropertyName: String] {
        try store.properties(ofMember: member.name, in: member.folder, path: member.path)
    }
}
