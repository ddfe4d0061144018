import Glibc
import SandboxCore

/// One page of a folder's listing for the web page: the visible items after a cursor, in
/// ``ListingOrder``, at most `limit` of them, read with bounded memory whatever the folder holds.
///
/// Every page reads the folder's names again (`getdents64` through the core's walk, into one
/// reusable buffer; no `statx` unless the file system leaves the type unknown) and keeps only
/// the best candidates: at most `2 × (limit + 1)` names are held at any time, so a folder of
/// 50,000 items costs a page's memory, not the folder's. The order is a total order on names,
/// so pages join up across changes: an item added behind the cursor is in no page until the
/// next listing from the start (the change feed makes the page list again), and none is sent
/// twice.
struct FolderPage {
    /// The items of the page, in order (each a folder or a file: never a symlink nor a device).
    var keys: [ListingOrder.Key]
    /// Where the next page starts (the last name this one read, which the policy may have hidden:
    /// the page can hold fewer than `limit` items), or `nil` when nothing follows.
    var next: ListingOrder.Key?
    /// The most names held at once while reading (for tests: it must not grow with the folder).
    var peakBuffered: Int

    /// The most items a page has; a larger `limit` asked for is lowered to it.
    static let maximumLimit = 5000

    /// Reads the page of `folder`'s visible items that follows `cursor` (the first page without).
    ///
    /// - Throws: the core's errors reading the folder (``SandboxCore/SandboxError/Code/notFound``
    ///   for a folder removed meanwhile, ``SandboxCore/SandboxError/Code/notADirectory``).
    static func read(
        _ folder: SharePath, in documents: ConfinedRoot, after cursor: ListingOrder.Key?, limit: Int
    ) throws(SandboxError) -> FolderPage {
        let limit = max(1, min(limit, maximumLimit))
        let capacity = 2 * (limit + 1)
        var kept: [ListingOrder.Key] = []
        kept.reserveCapacity(capacity)
        var bound: ListingOrder.Key?  // once known, nothing at or after it can be in the page
        var peak = 0
        try documents.list(at: folder.containerPath, recursive: false) { item, _ throws(SandboxError) in
            guard item.type == .directory || item.type == .regular else { return }
            let isFolder = item.type == .directory
            let name = UnsafeBufferPointer(
                start: UnsafeRawPointer(item.name).assumingMemoryBound(to: UInt8.self), count: item.nameLength)
            // Hidden names (a leading dot) are never listed; compared first, without copying.
            if name.first == UInt8(ascii: ".") { return }
            if let cursor, !isAfter(folder: isFolder, name, cursor) { return }
            if let bound, isAfter(folder: isFolder, name, bound) || isSame(folder: isFolder, name, bound) { return }
            let bytes = Array(name)
            guard SharePath.isValidName(bytes), String(validating: bytes, as: UTF8.self) != nil else { return }
            kept.append(ListingOrder.Key(folder: isFolder, name: bytes))
            peak = max(peak, kept.count)
            if kept.count >= capacity {
                kept.sort()
                kept.removeLast(kept.count - (limit + 1))
                bound = kept.last
            }
        }
        kept.sort()
        let more = kept.count > limit
        if more { kept.removeLast(kept.count - limit) }
        let next = more ? kept.last : nil
        // The container's policy (the Inbox at the top) judged for the page's items only.
        kept.removeAll { folder.appending(String(decoding: $0.name, as: UTF8.self)).isHidden }
        return FolderPage(keys: kept, next: next, peakBuffered: peak)
    }

    private static func isAfter(folder: Bool, _ name: UnsafeBufferPointer<UInt8>, _ key: ListingOrder.Key) -> Bool {
        key.name.withUnsafeBufferPointer { ListingOrder.compare(folder: folder, name, folder: key.folder, $0) > 0 }
    }

    private static func isSame(folder: Bool, _ name: UnsafeBufferPointer<UInt8>, _ key: ListingOrder.Key) -> Bool {
        folder == key.folder && name.elementsEqual(key.name)
    }
}

extension ListingOrder.Key {
    /// The cursor the page sends back for the next page: `d` (a folder) or `f` (a file), then the
    /// name. Opaque to the page; the server only compares it with names, never opens it.
    var cursor: String { (folder ? "d" : "f") + String(decoding: name, as: UTF8.self) }

    /// The key a cursor names.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` for anything but `d` or `f`
    ///   and a name an item could have (no `/`, no control character, at most 255 bytes).
    init(cursor: String) throws(SandboxError) {
        let bytes = Array(cursor.utf8)
        let kind = bytes.first
        let name = Array(bytes.dropFirst())
        guard kind == UInt8(ascii: "d") || kind == UInt8(ascii: "f"), SharePath.isValidName(name) else {
            throw SandboxError(
                .malformedRequest,
                "The listing's cursor '\(cursor.prefix(64))' is not one this server gives; list the folder "
                    + "again from its start (without 'after').")
        }
        self.init(folder: kind == UInt8(ascii: "d"), name: name)
    }
}
