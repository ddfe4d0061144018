extension ContainerPath {
    /// The path as the kernel reads it: the names' bytes joined by `/` and NUL-terminated; `.` for
    /// the root. Byte-exact, unlike ``description``.
    package var cString: [CChar] {
        guard !names.isEmpty else { return [CChar(UInt8(ascii: ".")), 0] }
        var rendered: [CChar] = []
        rendered.reserveCapacity(byteCount + 1)
        for (index, name) in names.enumerated() {
            if index > 0 { rendered.append(CChar(UInt8(ascii: "/"))) }
            rendered.append(contentsOf: name.cString.dropLast())
        }
        rendered.append(0)
        return rendered
    }
}
