import Sandbox

extension FuzzTarget {
    /// `ContainerPath(_:)`, `FileName(_:)` and `ContainerPath.validateName(_:)`: every path and
    /// name an app or a user types.
    ///
    /// A path that parses is a list of valid names as the kernel will split it (bytes between `/`)
    /// that never climbs above the root, and its text parses back to the same path. A name that
    /// validates is a one-name path, and its display can be read back to its bytes (so no two
    /// names display alike).
    static let containerPath = FuzzTarget(name: "container-path") { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        let codes: Set<String> = ["invalid-path", "escapes-container", "name-too-long"]
        do throws(SandboxError) {
            let path = try ContainerPath(text)
            checkNames(of: path, parsedFrom: text)
            guard let written = path.string else {
                invariant(false, "a path parsed from text, \(text.debugDescription), has no text")
                return
            }
            invariant(try ContainerPath(written) == path, "'\(written)' does not parse back to the path it came from")
        } catch {
            expectRefusal(
                code: error.code.rawValue, among: codes, message: error.message,
                for: "ContainerPath(\(text.debugDescription))")
        }
        do throws(SandboxError) {
            let name = try FileName(text)
            invariant(name.bytes == Array(text.utf8), "FileName changed the bytes of \(text.debugDescription)")
            invariant(
                try ContainerPath.validateName(text) == text,
                "validateName disagrees with FileName on \(text.debugDescription)")
            invariant(
                ContainerPath.root.appending(name).names == [name], "appending \(text.debugDescription) is not one name"
            )
            invariant(
                try ContainerPath(text).names == [name],
                "the valid name \(text.debugDescription) does not parse as one name")
            invariant(
                DisplayedName.bytes(of: name.description) == name.bytes,
                "the display \(name.description.debugDescription) of \(text.debugDescription) does not read back")
        } catch {
            expectRefusal(
                code: error.code.rawValue, among: codes, message: error.message,
                for: "FileName(\(text.debugDescription))")
        }
    }

    /// The names of `path` are what the kernel will see: the bytes of `text` between slashes,
    /// less `.`, with `..` never above the root.
    private static func checkNames(of path: ContainerPath, parsedFrom text: String) {
        let kernelNames = text.utf8.split(separator: UInt8(ascii: "/")).filter { $0.elementsEqual(".".utf8) == false }
            .map(Array.init)
        invariant(
            path.names.map(\.bytes) == kernelNames,
            "\(text.debugDescription) parsed as \(path.names.map(\.bytes)), the kernel splits it as \(kernelNames)")
        var depth = 0
        for name in path.names {
            invariant(
                (1...FileName.maximumLength).contains(name.count),
                "\(text.debugDescription) has a name of \(name.count) bytes")
            depth += name.bytes == Array("..".utf8) ? -1 : 1
            invariant(depth >= 0, "\(text.debugDescription) parsed although it climbs above the root")
        }
        invariant(
            path.byteCount <= ContainerPath.maximumLength,
            "\(text.debugDescription) parsed although it is past PATH_MAX")
    }
}
