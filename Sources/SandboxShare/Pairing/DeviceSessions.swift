import Crypto
import Foundation
import Sandbox
import Synchronization

/// The page's live sessions of one app's share as devices — a label from the browser's
/// `User-Agent`, when it logged in — in a file another `sandbox share` command reads to list them
/// and edits to revoke one: `Device/Share/devices-<app>.json` in the home (`Device/` is never in a
/// confined app's view; the file is `0600`, written atomically under a lock).
///
/// The file holds each session token's SHA-256, never the token: reading it grants nothing. The
/// running share writes an entry when a browser logs in (the form or a pairing link) and removes it
/// at logout; it checks the file on every request of a session and ends a session whose entry is
/// gone, so revoking is removing the entry. The decoded list is kept while the file's inode,
/// modification and status-change times and size stay the same (one `statx` a request): every
/// write replaces the file (a new inode), so another process's revoke is seen at the next request. The share empties the file when it starts: sessions
/// live in its memory and end with it.
package final class DeviceSessions: Sendable {
    /// A logged-in browser.
    package struct Entry: Codable, Sendable, Equatable {
        /// A short random name for `--revoke`.
        package let id: String
        /// The device and browser, e.g. `iPhone · Safari`.
        package let label: String
        /// When it logged in.
        package let created: Date
        /// ``created`` in ISO 8601, UTC.
        package var since: String { created.ISO8601Format() }
        /// The session token's SHA-256, in hex.
        let tokenHash: String
    }

    private let root: ConfinedRoot
    private let path: ContainerPath
    private let lockPath: ContainerPath
    private let cache = Mutex<Cache>(Cache())

    /// The last list decoded, and the file's identity then.
    private struct Cache {
        var identity: Identity?
        var entries: [Entry] = []
        /// How many times the file was read and decoded (for tests).
        var decodes = 0
    }

    /// What changes whenever the file is written: it is replaced, never written in place.
    private struct Identity: Equatable {
        let inode: UInt64
        let device: UInt64
        let modified: Date
        let changed: Date
        let size: Int64
    }

    /// How many times the list was read from the file and decoded (the rest came from the cache).
    package var decodeCount: Int { cache.withLock { $0.decodes } }

    /// The device list of `app`'s share in `home`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidPath`` never in practice (an app identifier is a valid name).
    package init(home: SandboxHome, app: AppIdentifier) throws(SandboxError) {
        root = home.root
        path = try ContainerPath("Device/Share/devices-\(app.rawValue).json")
        lockPath = try ContainerPath("Device/Share/devices-\(app.rawValue).lock")
    }

    /// The logged-in browsers, oldest first; none when the share never ran.
    ///
    /// - Throws: the core's errors reading the file; ``SandboxCore/SandboxError/Code/corrupt`` when it is not a list.
    package func list() throws(SandboxError) -> [Entry] {
        guard let attributes = try root.attributes(at: path, followingSymlink: false) else { return [] }
        let identity = Identity(
            inode: attributes.inode, device: attributes.device, modified: attributes.modificationDate,
            changed: attributes.statusChangeDate, size: attributes.size)
        if let cached = cache.withLock({ $0.identity == identity ? $0.entries : nil }) { return cached }
        let bytes: [UInt8]
        do {
            bytes = try root.readContents(of: path, maximumSize: 1 << 20)
        } catch  where error.code == .notFound {
            return []
        }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let entries = try decoder.decode([Entry].self, from: Data(bytes))
            // Replaced between the statx and the read: cached under the older identity, so the
            // next call reads it again.
            cache.withLock { $0 = Cache(identity: identity, entries: entries, decodes: $0.decodes + 1) }
            return entries
        } catch {
            throw SandboxError(
                .corrupt,
                "The share's device list '\(root.displayPath(of: path))' does not read (\(error)); remove it.",
                path: path.description)
        }
    }

    /// Removes the entry `id`: the running share ends that session at its next request.
    ///
    /// - Returns: whether there was one.
    /// - Throws: as ``list()``, and the core's errors writing the file or taking its lock.
    package func revoke(id: String) throws(SandboxError) -> Bool {
        try update { entries in
            let before = entries.count
            entries.removeAll { $0.id == id }
            return entries.count != before
        }
    }

    /// Empties the list (the share starting: no session of an earlier run lives on).
    func reset() throws(SandboxError) {
        try root.createDirectory(at: path.parent, withIntermediateDirectories: true)
        try update { $0 = [] }
    }

    /// Adds the session of `token`, logged in now by the browser whose `User-Agent` is `userAgent`.
    func add(token: String, userAgent: String?, now: Date = Date()) throws(SandboxError) {
        var generator = SystemRandomNumberGenerator()
        let id = Hex.string(withUnsafeBytes(of: (generator.next() as UInt32).littleEndian) { Array($0) })
        let entry = Entry(id: id, label: Self.label(userAgent: userAgent), created: now, tokenHash: Self.hash(token))
        try update { $0.append(entry) }
    }

    /// Removes the session of `token` (a logout).
    func remove(token: String) throws(SandboxError) {
        let hash = Self.hash(token)
        try update { $0.removeAll { $0.tokenHash == hash } }
    }

    /// Whether the session of `token` is listed (not revoked); `false` when the list does not read.
    func contains(token: String) -> Bool {
        let hash = Self.hash(token)
        do {
            return try list().contains { ConstantTime.equal($0.tokenHash.utf8, hash.utf8) }
        } catch {
            return false  // fails closed: a list that does not read ends the session
        }
    }

    /// `change` applied to the list under the lock file, written back atomically.
    private func update<T>(_ change: (inout [Entry]) -> T) throws(SandboxError) -> T {
        let lock = try FileLock(root: root, path: lockPath)
        guard try lock.lock(.exclusive, until: .now + .seconds(5)) else {
            throw SandboxError(
                .unavailable, "The share's device list '\(root.displayPath(of: path))' stayed locked for 5 s; retry.",
                path: path.description)
        }
        defer { lock.unlock() }
        var entries = try list()
        let result = change(&entries)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try root.writeContents(Array(try encoder.encode(entries)), to: path, options: .atomic)
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(.internalError, "The device list could not be encoded: \(error)")
        }
        return result
    }

    static func hash(_ token: String) -> String { Hex.string(Array(SHA256.hash(data: Array(token.utf8)))) }

    /// `iPhone · Safari`, `Android · Chrome`, `Mac · Firefox`…: the device and the browser a
    /// `User-Agent` names, as far as it says.
    static func label(userAgent: String?) -> String {
        let agent = userAgent ?? ""
        let devices = [
            ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("Macintosh", "Mac"),
            ("Windows", "Windows"), ("CrOS", "Chromebook"), ("Linux", "Linux"),
        ]
        let browsers = [
            ("Edg", "Edge"), ("CriOS", "Chrome"), ("Chrome/", "Chrome"), ("FxiOS", "Firefox"), ("Firefox/", "Firefox"),
            ("Safari/", "Safari"), ("curl/", "curl"),
        ]
        let device = devices.first { agent.contains($0.0) }?.1 ?? "Unknown device"
        let browser = browsers.first { agent.contains($0.0) }?.1 ?? "unknown browser"
        return "\(device) · \(browser)"
    }
}
