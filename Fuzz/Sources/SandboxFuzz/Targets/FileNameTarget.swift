import Foundation
import Sandbox

extension FuzzTarget {
    /// Names as the file system stores them: any bytes but `/` and NUL. The input is made a file's
    /// name with `openat(2)` (as another program, or a copy from elsewhere, would), then listed with
    /// `contentsOfDirectory(at:)` and reached by the listed path.
    ///
    /// The listed name is the bytes on disk, exactly; its text is there exactly when the bytes are
    /// UTF-8; its display reads back to the bytes (no two names display alike) and escapes every
    /// name that is not UTF-8; the listed path reaches the file and removes it.
    static let fileName = FuzzTarget(
        name: "file-name",
        prepare: { _ = folder },
        run: { bytes in
            guard (1...FileName.maximumLength).contains(bytes.count), !bytes.contains(0),
                !bytes.contains(UInt8(ascii: "/")),
                bytes != Array(".".utf8), bytes != Array("..".utf8)
            else { return }  // not a name Linux can store
            let root = ScratchHome.shared.container.root
            let (path, descriptor) = folder
            let cName = (bytes + [0]).map { CChar(bitPattern: $0) }
            let created = openat(descriptor, cName, O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
            guard created >= 0 else { fatalError("sandbox-fuzz: cannot create a file named \(bytes): errno \(errno)") }
            close(created)
            do throws(SandboxError) {
                let entries = try root.contentsOfDirectory(at: path)
                invariant(entries.count == 1, "one file listed as \(entries.count) entries")
                let name = entries[0].fileName
                invariant(name.bytes == bytes, "the file named \(bytes) listed as \(name.bytes)")
                let text = String(validating: bytes, as: UTF8.self)
                invariant(
                    name.string == text,
                    "the text of \(bytes) is \(String(describing: name.string)), not \(String(describing: text))")
                invariant(
                    entries[0].path.string == text.map { "tmp/names/" + $0 },
                    "the listed path's text is \(String(describing: entries[0].path.string))")
                invariant(
                    DisplayedName.bytes(of: name.description) == bytes,
                    "the display \(name.description.debugDescription) does not read back to \(bytes)")
                invariant(
                    text != nil || name.description.contains("\\x"),
                    "the name \(bytes), not UTF-8, displays without an escape")
                invariant(
                    try root.attributes(at: entries[0].path, followingSymlink: false)?.type == .regular,
                    "the listed path does not reach the file")
                invariant(try root.removeItem(at: entries[0].path) == 1, "the listed path does not remove the file")
                invariant(try root.contentsOfDirectory(at: path).isEmpty, "the file is still listed after its removal")
            } catch {
                invariant(false, "a file named \(bytes) cannot be listed, reached or removed: \(error)")
            }
        }
    )

    /// `tmp/names` in the scratch container, and a descriptor of it to create files with.
    private static let folder: (ContainerPath, CInt) = {
        let scratch = ScratchHome.shared
        do {
            let path = try ContainerPath("tmp/names")
            try scratch.container.root.createDirectory(at: path, withIntermediateDirectories: true)
            let descriptor = open(scratch.container.root.hostPath + "/tmp/names", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { fatalError("sandbox-fuzz: cannot open the names folder: errno \(errno)") }
            return (path, descriptor)
        } catch {
            fatalError("sandbox-fuzz: cannot make the names folder: \(error)")
        }
    }()
}
