import SandboxCore
import SandboxTesting
import Testing

@Suite struct CopyAttributesTests {
    /// A copied folder kept none of its own `user.` attributes, only its files' (found through
    /// the sharing server: a collection's dead properties were lost by COPY).
    @Test func aCopiedTreeKeepsEveryFoldersUserAttributes() throws {
        try ScratchDirectory.with { scratch in
            let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
            try root.createDirectory(at: ContainerPath("top/middle/bottom"), withIntermediateDirectories: true)
            try root.writeContents([1], to: ContainerPath("top/middle/file"))
            for path in ["top", "top/middle", "top/middle/bottom", "top/middle/file"] {
                try root.setExcludedFromBackup(true, at: ContainerPath(path))
                try root.setExtendedAttribute(named: "user.test", to: Array(path.utf8), at: ContainerPath(path))
            }
            try root.copyItem(from: ContainerPath("top"), to: ContainerPath("copy"))
            for path in ["copy", "copy/middle", "copy/middle/bottom", "copy/middle/file"] {
                #expect(try root.isExcludedFromBackup(at: ContainerPath(path)), "\(path)")
                let original = "top" + path.dropFirst("copy".count)
                #expect(try root.extendedAttribute(named: "user.test", at: ContainerPath(path)) == Array(original.utf8))
            }
        }
    }
}
