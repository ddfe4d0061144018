#if DEBUG
    import SandboxCore
    import SystemPackage
    import Testing

    /// Disk-full and I/O errors during whole-file writes, injected (``FaultInjection``): the previous
    /// contents stay, no temporary is left, and the error names the file.
    @Suite("Faults: writes")
    struct WriteFaultTests {
        static let old = patternBytes(50_000, seed: 51)
        static let new = patternBytes(200_000, seed: 52)

        /// A fixture whose `doc` holds ``old``.
        static func fixture() throws -> FaultFixture {
            let fixture = try FaultFixture()
            try fixture.root.writeContents(old, to: try fixture.path("doc"))
            return fixture
        }

        static func expectIntact(_ fixture: FaultFixture, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(fixture.hostRead("doc") == old, "the previous contents changed", sourceLocation: sourceLocation)
            #expect(fixture.names == ["doc"], "a temporary was left", sourceLocation: sourceLocation)
        }

        /// The error's message names the file.
        static func expectNames(
            _ error: SandboxError?, _ fixture: FaultFixture, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let names = error?.message.contains("\(fixture.marker)/doc") == true
            #expect(names, "\(String(describing: error))", sourceLocation: sourceLocation)
        }

        @Test(
            "ENOSPC while writing: sync and async, atomic with or without durable",
            arguments: [WriteOptions.atomic, [.atomic, .durable]])
        func noSpaceOnWrite(options: WriteOptions) async throws {
            let fixture = try Self.fixture()
            let path = try fixture.path("doc")
            let fired = await fixture.inject(.noSpace, into: writeCalls) {
                let failed = expectIOError(.noSpace) {
                    try fixture.root.writeContents(Self.new, to: path, options: options)
                }
                Self.expectNames(failed, fixture)
                Self.expectIntact(fixture)
                let failedAsync = await expectIOError(.noSpace) {
                    try await fixture.root.writeContents(
                        DataRegions(Self.new), to: path, options: options, engine: .shared)
                }
                Self.expectNames(failedAsync, fixture)
                Self.expectIntact(fixture)
                await expectIOError(.noSpace) {
                    try await fixture.root.withWriter(at: path, options: options) { writer in
                        try await writer.write(DataRegions(Self.new))
                    }
                }
                Self.expectIntact(fixture)
            }
            #expect(fired >= 3)
            // Once there is space again, the same write succeeds.
            try fixture.root.writeContents(Self.new, to: path, options: options)
            #expect(fixture.hostRead("doc") == Self.new)
        }

        @Test("ENOSPC while writing into a named temporary (no O_TMPFILE): the temporary is removed")
        func noSpaceInNamedTemporary() async throws {
            let fixture = try Self.fixture()
            let path = try fixture.path("doc")
            // A file system without O_TMPFILE: the write goes through a named temporary beside the file.
            let unnamed = FaultInjection.inject(
                .notSupported, into: ["openat(O_TMPFILE)"], onPathsContaining: fixture.marker)
            defer { unnamed.remove() }
            await fixture.inject(.noSpace, into: writeCalls) {
                Self.expectNames(
                    expectIOError(.noSpace) { try fixture.root.writeContents(Self.new, to: path) }, fixture)
                Self.expectIntact(fixture)
                await expectIOError(.noSpace) {
                    try await fixture.root.writeContents(DataRegions(Self.new), to: path, engine: .shared)
                }
                Self.expectIntact(fixture)
            }
            #expect(unnamed.fired >= 2, "the named-temporary path was not taken")
            try fixture.root.writeContents(Self.new, to: path)
            #expect(fixture.hostRead("doc") == Self.new)
            #expect(fixture.names == ["doc"])
        }

        @Test(
            "EIO and ENOSPC from fsync during a durable write: nothing is published",
            arguments: [Errno.ioError, .noSpace])
        func fsyncFailure(errno: Errno) async throws {
            let fixture = try Self.fixture()
            let path = try fixture.path("doc")
            let code: SandboxError.Code = errno == .ioError ? .io : .noSpace
            let fired = try await fixture.inject(errno, into: ["fsync", "fdatasync"]) {
                let failed = expectIOError(code) {
                    try fixture.root.writeContents(Self.new, to: path, options: [.atomic, .durable])
                }
                Self.expectNames(failed, fixture)
                Self.expectIntact(fixture)
                await expectIOError(code) {
                    try await fixture.root.writeContents(
                        DataRegions(Self.new), to: path, options: [.atomic, .durable], engine: .shared)
                }
                Self.expectIntact(fixture)
                await expectIOError(code) {
                    try await fixture.root.withWriter(at: path, options: [.atomic, .durable]) { writer in
                        try await writer.write(DataRegions(Self.new))
                    }
                }
                Self.expectIntact(fixture)
                // Without durable there is no fsync: the write goes through.
                try fixture.root.writeContents(Self.new, to: path)
            }
            #expect(fired == 3)
            #expect(fixture.hostRead("doc") == Self.new)
        }
    }
#endif
