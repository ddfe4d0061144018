import Sandbox
import Synchronization

/// A protected file written a piece at a time, as through a file handle opened for writing
/// (``DataProtection/openWriter(at:in:protection:options:)``): each segment is sealed and queued
/// once it is complete, and ``close()`` seals the last one and publishes the file atomically
/// (nothing is at the path before; a writer discarded, failed or dropped unclosed publishes
/// nothing).
///
/// The writer holds its file's key from the moment it is opened, so, as with iOS's classes:
/// - ``ProtectionClass/completeUnlessOpen``: a file open for writing is finished after the device
///   locks — writes and ``close()`` go on; reading it back needs an unlock
///   (``DataProtection/readContents(of:in:maximumSize:)`` is `protected-data-unavailable` until
///   then). Such a file can even be opened while locked: only the class's public key is needed.
/// - ``ProtectionClass/complete``: locking ends it — ``write(contentsOf:)`` and ``close()`` throw
///   ``SandboxCore/SandboxError/Code/protectedDataUnavailable`` while locked, and nothing is published.
/// - ``ProtectionClass/untilFirstUserAuthentication`` and ``ProtectionClass/none``: locking does
///   not concern them.
///
/// Calls must not overlap: one ``write(contentsOf:)`` at a time, awaited before the next.
public final class ProtectedFileWriter: Sendable {
    /// The file being written, relative to its root.
    public let path: ContainerPath
    /// Its class; `nil` for a plain file (its folder has no default class).
    public let protection: ProtectionClass?
    private let root: ConfinedRoot
    private let dataProtection: DataProtection
    private let sealer: SegmentSealer?
    private let output: FileWriter
    /// Whether a passcode was set at open: without one, no class is ever locked.
    private let locks: Bool
    private let state: Mutex<State>

    private struct State {
        /// Plaintext not sealed yet: at most one segment once a write returns (the last segment is
        /// sealed only at ``close()``, with the final flag).
        var pending: [UInt8] = []
        /// The header, until it goes out with the first segments.
        var header: [UInt8]
        var nextSegment = 0
        var busy = false
    }

    init(
        path: ContainerPath, root: ConfinedRoot, dataProtection: DataProtection, protection: ProtectionClass?,
        sealer: SegmentSealer?, output: FileWriter, locks: Bool
    ) {
        self.path = path
        self.root = root
        self.dataProtection = dataProtection
        self.protection = protection
        self.sealer = sealer
        self.output = output
        self.locks = locks
        state = Mutex(State(header: sealer?.header ?? []))
    }

    /// Appends `bytes`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/protectedDataUnavailable`` for a ``ProtectionClass/complete``
    ///   file while the device is locked (the writer is then discarded);
    ///   ``SandboxCore/SandboxError/Code/invalidValue`` while another call runs; the core's codes of a failed
    ///   write (`no-space`, `io`, `closed` after ``close()``), after which nothing is published.
    public func write(contentsOf bytes: some Collection<UInt8>) async throws(SandboxError) {
        try begin()
        defer { end() }
        try requireAvailable()
        let sealed = try state.withLock { state throws(SandboxError) -> DataRegions in
            state.pending.append(contentsOf: bytes)
            guard let sealer else {
                defer { state.pending.removeAll(keepingCapacity: true) }
                return DataRegions(state.pending)
            }
            let full = (state.pending.count - 1) / sealer.segmentSize  // the last segment waits for close
            guard full > 0 else { return DataRegions() }
            let sealed = try seal(&state, segments: full, final: false, with: sealer)
            return sealed
        }
        guard sealed.count > 0 else { return }
        try await forward { () async throws(SandboxError) in try await output.write(sealed) }
    }

    /// Seals what is left as the last segment, writes it, and publishes the file at ``path``.
    ///
    /// - Returns: the size of the file on disk.
    /// - Throws: as ``write(contentsOf:)``, and the errors of ``/SandboxCore/FileWriter/finish()``
    ///   (`already-exists` with ``/SandboxCore/WriteOptions/withoutOverwriting``, …); nothing is
    ///   published then.
    @discardableResult
    public func close() async throws(SandboxError) -> Int64 {
        try await close(modificationTime: nil)
    }

    /// ``close()``, the file published with `modificationTime` (since the epoch) as its
    /// modification time when given (``/SandboxCore/FileWriter/finish(modificationTime:)``).
    ///
    /// - Throws: as ``close()``.
    @discardableResult
    package func close(modificationTime: Duration?) async throws(SandboxError) -> Int64 {
        try begin()
        defer { end() }
        try requireAvailable()
        let last = try state.withLock { state throws(SandboxError) -> DataRegions in
            guard let sealer else {
                defer { state.pending.removeAll() }
                return DataRegions(state.pending)
            }
            return try seal(&state, segments: 1, final: true, with: sealer)
        }
        let size = try await forward { () async throws(SandboxError) in
            if last.count > 0 { try await output.write(last) }
            return try await output.finish(modificationTime: modificationTime)
        }
        if let protection {
            do {
                // As in DataProtection.write: the header decides, the attribute is for `stat`.
                try root.setExtendedAttribute(
                    named: ProtectionClass.attributeName, to: Array(protection.rawValue.utf8), at: path)
            } catch  where error.code == .unsupported {
            } catch {
                throw error
            }
        }
        return size
    }

    /// Abandons the file: nothing is published.
    public func discard() {
        output.discard()
    }

    /// Seals `segments` segments from the front of `state.pending` (the last of them `final`).
    private func seal(
        _ state: inout State, segments: Int, final: Bool, with sealer: SegmentSealer
    ) throws(SandboxError) -> DataRegions {
        let plaintextCount = min(state.pending.count, segments * sealer.segmentSize)
        var sealed = state.header
        sealed.append(contentsOf: repeatElement(0, count: plaintextCount + segments * ProtectedFileFormat.tagSize))
        state.header = []
        var written = sealed.count - plaintextCount - segments * ProtectedFileFormat.tagSize
        for offset in stride(from: 0, to: max(1, plaintextCount), by: sealer.segmentSize) {
            let end = min(plaintextCount, offset + sealer.segmentSize)
            let index = state.nextSegment
            let result = state.pending.withUnsafeBytes { plaintext in
                sealed.withUnsafeMutableBytes { output in
                    Result { () throws(SandboxError) in
                        try sealer.seal(
                            UnsafeRawBufferPointer(rebasing: plaintext[offset..<end]), index: index,
                            final: final && end == plaintextCount,
                            into: UnsafeMutableRawBufferPointer(rebasing: output[written...]))
                    }
                }
            }
            written += try result.get()
            state.nextSegment += 1
        }
        state.pending.removeFirst(plaintextCount)
        return DataRegions(sealed[0..<written])
    }

    private func begin() throws(SandboxError) {
        let busy = state.withLock { state in
            defer { state.busy = true }
            return state.busy
        }
        guard !busy else {
            throw SandboxError(
                .invalidValue,
                "'\(path)' is already being written by another call; await each write before the next.",
                path: path.description)
        }
    }

    private func end() {
        state.withLock { $0.busy = false }
    }

    /// For a ``ProtectionClass/complete`` file: the device must still be unlocked.
    private func requireAvailable() throws(SandboxError) {
        guard locks, protection == .complete else { return }
        guard try dataProtection.unlockedKeys.key(for: .complete) != nil else {
            output.discard()
            throw DataProtection.unavailable(.complete, path: path.description)
        }
    }

    private func forward<T>(_ body: () async throws(SandboxError) -> T) async throws(SandboxError) -> T {
        do {
            return try await body()
        } catch {
            throw error
        }
    }
}

extension DataProtection {
    /// Opens the file at `path` for writing a piece at a time, protected with `protection` (see
    /// ``ProtectedFileWriter`` for what locking does to an open file of each class). Nothing is at
    /// the path until ``ProtectedFileWriter/close()``.
    ///
    /// - Parameters:
    ///   - path: the file to create or replace, relative to `root`.
    ///   - root: the container's root.
    ///   - protection: the class; `nil`: the default class of the file's folder, and a plain file
    ///     when it has none.
    ///   - options: as for ``write(_:to:in:protection:options:)``; ``/SandboxCore/WriteOptions/atomic`` is implied.
    /// - Throws: ``SandboxCore/SandboxError/Code/protectedDataUnavailable`` for a ``ProtectionClass/complete`` or
    ///   ``ProtectionClass/untilFirstUserAuthentication`` file while its key is not unlocked;
    ///   the core's codes of ``/SandboxCore/ConfinedRoot/openWriter(at:options:engine:)``.
    public func openWriter(
        at path: ContainerPath, in root: ConfinedRoot, protection: ProtectionClass? = nil,
        options: WriteOptions = [.atomic]
    ) throws(SandboxError) -> ProtectedFileWriter {
        try openWriter(at: path, in: root, protection: protection, options: options, queueLimit: nil)
    }

    /// ``openWriter(at:in:protection:options:)`` with at most `queueLimit` bytes queued before
    /// writes wait (the core's default when `nil`): for a server running many writers at once (the
    /// sharing server's uploads).
    package func openWriter(
        at path: ContainerPath, in root: ConfinedRoot, protection: ProtectionClass? = nil, options: WriteOptions,
        queueLimit: Int?
    ) throws(SandboxError) -> ProtectedFileWriter {
        var chosen = protection
        if chosen == nil { chosen = try defaultProtection(forDirectoryAt: path.parent, in: root) }
        let sealer = try chosen.map { (protection) throws(SandboxError) in
            try makeSealer(protection: protection, path: path.description)
        }
        let locks = try hasPasscode
        let output =
            if let queueLimit {
                try root.openWriter(at: path, options: options.union(.atomic), queueLimit: queueLimit)
            } else {
                try root.openWriter(at: path, options: options.union(.atomic))
            }
        return ProtectedFileWriter(
            path: path, root: root, dataProtection: self, protection: chosen, sealer: sealer, output: output,
            locks: locks)
    }
}
