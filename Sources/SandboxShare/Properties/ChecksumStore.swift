import Logging
import NIOCore
import Sandbox
import SandboxStore
import SystemPackage

/// Where a file's ``ContentChecksums`` are kept: its extended attribute `user.sandbox.checksums`,
/// beside the entity tag of the file they were computed from (``EntityTag``: inode, size,
/// modification time). A record whose tag is not the file's tag now is stale and never served.
///
/// So the app's own writes are safe without the share seeing them: a rewrite in place changes the
/// modification time, a replacement (a new file renamed over, which the core's atomic writer gives
/// the replaced file's attributes, this one included) has another inode, and a copy too. A writer
/// that keeps the inode and the size and puts the modification time back to the nanosecond goes
/// unseen, as it does by the entity tag and by every client comparing sizes and times.
///
/// Records are written by an upload (hashed as it streamed in, stored on the file it published,
/// found by its inode) and by a PROPFIND that asks for `oc:checksums` of a file that has none
/// (``computed(for:path:in:budget:logger:)``: hashed within a per-request budget, then stored
/// only if the file did not change meanwhile). Files Data Protection sealed get none: a digest of
/// their plaintext kept in the clear would let anyone reading the disk confirm a guessed content
/// while the class is locked.
enum ChecksumStore {
    /// The extended attribute holding the record (`user.`: the namespace an unprivileged process
    /// may write; not under ``DeadPropertyRecord/attributePrefix``, so never a dead property).
    static let attributeName = "user.sandbox.checksums"

    /// The bytes a PROPFIND may hash for files without a record: about 3 s of one core at most,
    /// after which the files it did not reach are listed without `oc:checksums` (and are hashed by
    /// the next request, the hashed ones being stored).
    static let requestBudget: Int64 = 1 << 30

    /// The record's bytes: `1 <entity tag> <SHA-1 hex> <MD5 hex>`.
    static func encode(_ checksums: ContentChecksums, of attributes: FileAttributes) -> [UInt8] {
        Array("1 \(EntityTag.of(attributes)) \(Hex.string(checksums.sha1)) \(Hex.string(checksums.md5))".utf8)
    }

    /// The checksums in `record` if it is one this store wrote for a file with `attributes`;
    /// `nil` for a stale record (the file changed since) or anything else.
    static func decode(_ record: [UInt8], for attributes: FileAttributes) -> ContentChecksums? {
        let fields = record.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0].elementsEqual("1".utf8),
            fields[1].elementsEqual(EntityTag.of(attributes).utf8),
            fields[2].count == 40, let sha1 = Hex.bytes(fields[2]),
            fields[3].count == 32, let md5 = Hex.bytes(fields[3])
        else { return nil }
        return ContentChecksums(sha1: sha1, md5: md5)
    }

    /// The checksums stored on the open `file`, which has `attributes`, if they are current.
    static func stored(on file: OpenFile, attributes: FileAttributes, logger: Logger) -> ContentChecksums? {
        do throws(SandboxError) {
            let record = try file.withUnsafeDescriptor { descriptor throws(SandboxError) in
                try ExtendedAttributes.value(of: attributeName, fd: descriptor.rawValue, path: file.path)
            }
            return record.flatMap { decode($0, for: attributes) }
        } catch  where error.code == .unsupported {
            return nil
        } catch {
            logger.warning("Could not read the checksums of '\(file.path)': \(error)")
            return nil
        }
    }

    /// Stores `checksums` on the open `file`, which has `attributes`; a file system without
    /// extended attributes stores nothing, and a failure is logged: the checksums are a cache.
    static func store(_ checksums: ContentChecksums, on file: OpenFile, attributes: FileAttributes, logger: Logger) {
        do throws(SandboxError) {
            try file.withUnsafeDescriptor { descriptor throws(SandboxError) in
                try ExtendedAttributes.setValue(
                    encode(checksums, of: attributes), of: attributeName, fd: descriptor.rawValue, path: file.path)
            }
        } catch  where error.code == .unsupported {
        } catch {
            logger.warning("Could not store the checksums of '\(file.path)': \(error)")
        }
    }

    /// Stores the checksums of an upload on the file it published, which had `published` (from
    /// its own descriptor): on the file now at `path` only if it is that file, unchanged.
    static func record(
        _ checksums: ContentChecksums, published: FileAttributes, at path: SharePath, in documents: ConfinedRoot,
        logger: Logger
    ) {
        let file: OpenFile
        let attributes: FileAttributes
        do throws(SandboxError) {
            (file, attributes) = try documents.openFileDescribed(forReadingAt: path.containerPath)
        } catch {
            return  // gone or replaced already: nothing to keep the checksums on
        }
        defer { closeQuietly(file) }
        guard attributes.inode == published.inode, attributes.device == published.device,
            EntityTag.of(attributes) == EntityTag.of(published)
        else { return }
        store(checksums, on: file, attributes: attributes, logger: logger)
    }

    /// The checksums of the file at `path`: the stored ones when current, otherwise computed —
    /// if its size fits in what is left of `budget`, which it then uses — and stored when the file
    /// did not change while it was read. `nil` for a file over the budget, a protected one, one
    /// that changed while it was hashed, or one that cannot be read (a symlink, which the share
    /// never follows, among them).
    static func computed(
        for path: SharePath, in documents: ConfinedRoot, dataProtection: DataProtection?, budget: inout Int64,
        logger: Logger
    ) async -> ContentChecksums? {
        let file: OpenFile
        let attributes: FileAttributes
        do throws(SandboxError) {
            (file, attributes) = try documents.openFileDescribed(forReadingAt: path.containerPath)
        } catch {
            return nil
        }
        defer { closeQuietly(file) }
        if let stored = stored(on: file, attributes: attributes, logger: logger) { return stored }
        guard attributes.size <= budget else { return nil }
        do {
            let contents = try await FileContents.open(
                file, size: attributes.size, path: path, dataProtection: dataProtection)
            guard contents.reader == nil else { return nil }
            budget -= attributes.size
            let checksums = try await hash(file, size: attributes.size, path: path)
            // Hashed bytes of two versions are no version's checksums: re-read the validator.
            let after = try file.attributes()
            guard EntityTag.of(after) == EntityTag.of(attributes) else { return nil }
            store(checksums, on: file, attributes: attributes, logger: logger)
            return checksums
        } catch {
            logger.warning("PROPFIND \(path): no checksums: \(error)")
            return nil
        }
    }

    /// Hashes the `size` bytes of `file`, a chunk at a time on the I/O engine (never on the
    /// request's thread): memory stays at one chunk whatever the size.
    private static func hash(_ file: OpenFile, size: Int64, path: SharePath) async throws -> ContentChecksums {
        var hasher = ContentChecksums.Hasher()
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(Int64(FileBody.chunkSize), size - offset))
            let start = offset
            hasher = try await IOEngine.shared.run { [hasher] () throws -> ContentChecksums.Hasher in
                var hasher = hasher
                var buffer = ByteBufferAllocator().buffer(capacity: count)
                let read = try FileBody.read(count, at: start, of: file, into: &buffer, path)
                guard read == count else {
                    throw SandboxError(.internalError, "'\(path)' shrank while it was hashed.", path: path.description)
                }
                hasher.update(buffer)
                return hasher
            }
            offset += Int64(count)
        }
        return hasher.finalize()
    }
}
