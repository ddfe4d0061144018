import SandboxCore
import Testing

/// Paths are split on the byte `/`, as the kernel splits them (found by the `container-path`
/// fuzz target: Fuzz/Corpus/container-path/).
@Suite struct PathSplittingTests {
    /// U+0600 (a prepended concatenation mark) makes one Character with the `/` after it: split on
    /// Characters, `"\u{600}/../.."` looked like two names at depth 0; the kernel sees three, and
    /// the second `..` climbs above the root.
    @Test func prependedMarkDoesNotHideASeparator() {
        #expect(throws: SandboxError.self) { try ContainerPath("\u{600}/../..") }
        do {
            _ = try ContainerPath("\u{600}/../..")
        } catch {
            #expect(error.code == .escapesContainer)
        }
    }

    /// A combining mark after `/` made one name containing `/`.
    @Test func combiningMarkAfterSlashStartsANewName() throws {
        let path = try ContainerPath("Documents/\u{301}.txt")
        #expect(path.names.count == 2)
        #expect(path.names.allSatisfy { !$0.bytes.contains(UInt8(ascii: "/")) })
        #expect(path.names.last?.bytes == Array("\u{301}.txt".utf8))
    }

    /// `..` and `.` are recognised by their bytes only.
    @Test func dotNamesAreBytes() throws {
        #expect(try ContainerPath("a/./b").names.count == 2)
        #expect(try ContainerPath("a/..\u{301}").names.count == 2)  // not a parent reference
    }
}
