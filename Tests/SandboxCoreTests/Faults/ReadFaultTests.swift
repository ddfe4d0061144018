#if DEBUG
    import SandboxCore
    import SystemPackage
    import Testing

    @Suite("Faults: reads and interrupted calls")
    struct ReadFaultTests {
        @Test("EIO while reading: readContents (sync and async), a handle and a channel throw .io naming the file")
        func ioErrorOnRead() async throws {
            let fixture = try FaultFixture()
            let bytes = patternBytes(100_000, seed: 53)
            let path = try fixture.path("doc")
            try fixture.root.writeContents(bytes, to: path)
            try await fixture.inject(.ioError, into: ["read", "pread", "readv", "preadv"]) {
                let failed = expectIOError(.io) { try fixture.root.readContents(of: path) }
                #expect(failed?.message.contains("\(fixture.marker)/doc") == true, "\(String(describing: failed))")
                await expectIOError(.io) { try await fixture.root.readContents(of: path, engine: .shared) }
                let file = try fixture.root.openFile(forReadingAt: path)
                expectIOError(.io) { try file.read(upToCount: 10, atOffset: 0) }
                try file.close()
                let channel = try fixture.root.openChannel(at: path)
                await expectIOError(.io) { try await channel.readAll() }
                channel.close()
                await channel.waitUntilReleased()
            }
            #expect(try fixture.root.readContents(of: path) == bytes)
        }

        @Test("a storm of EINTR is retried: every call completes with the right bytes")
        func interruptedStorm() async throws {
            let fixture = try FaultFixture()
            let bytes = patternBytes(300_000, seed: 54)
            let path = try fixture.path("doc")
            let storm = 1_000
            let writes = try await fixture.inject(.interrupted, into: ["write", "writev", "pwritev"], times: storm) {
                try fixture.root.writeContents(bytes, to: path)
            }
            #expect(writes == storm)
            #expect(fixture.hostRead("doc") == bytes)
            let reads = try await fixture.inject(.interrupted, into: ["pread", "preadv", "fsync"], times: storm) {
                #expect(try fixture.root.readContents(of: path) == bytes)
                #expect(try await fixture.root.readContents(of: path, engine: .shared) == bytes)
                try await fixture.root.writeContents(
                    DataRegions(bytes), to: path, options: [.atomic, .durable], engine: .shared)
            }
            #expect(reads == storm)
            #expect(fixture.hostRead("doc") == bytes)
        }
    }
#endif
