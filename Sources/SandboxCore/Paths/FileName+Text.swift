extension FileName {
    /// The name as text when its bytes are valid UTF-8, exactly (no repair); `nil` otherwise.
    public var string: String? {
        cString.withUnsafeBufferPointer { buffer in buffer.baseAddress.flatMap { String(validatingCString: $0) } }
    }

    /// Whether the bytes are valid UTF-8 (APFS accepts only such names; ext4 accepts any bytes).
    public var isValidUTF8: Bool { string != nil }

    /// Whether the name is valid UTF-8 in Unicode Normalization Form C, the composed form macOS
    /// and iOS write. `false` for a decomposed (NFD) spelling and for invalid UTF-8.
    public var isNFC: Bool {
        guard let string else { return false }
        return string._nfcCodeUnits.elementsEqual(string.utf8)
    }

    /// The name for display: printable text as is; a backslash doubled; control characters and
    /// bytes that are not valid UTF-8 as `\xHH`. Two different names never display alike, and a
    /// name that is not valid UTF-8 always shows an escape. Never use it to reach the item: the
    /// display of an escaped name names no item (use the name itself).
    public var description: String {
        // Most names need no escape (valid UTF-8, no control character, no backslash): as they are.
        let plain = cString.dropLast().allSatisfy { char in
            let byte = UInt8(bitPattern: char)
            return byte >= 0x80 || Self.showsAsIs(ascii: byte)
        }
        if plain, let string { return string }
        let bytes = self.bytes
        var text = ""
        var index = 0
        while index < bytes.count {
            // A fresh parser per scalar, so that the bytes of an invalid sequence are known.
            var parser = Unicode.UTF8.ForwardParser()
            var iterator = bytes[index...].makeIterator()
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if scalar == "\\" {
                    text += "\\\\"
                } else if scalar.value < 0x20 || scalar.value == 0x7F {
                    text += Self.escaped(UInt8(scalar.value))
                } else {
                    text.unicodeScalars.append(scalar)
                }
                index += encoded.count
            case .error(let length):
                for byte in bytes[index..<index + length] { text += Self.escaped(byte) }
                index += length
            case .emptyInput:
                index = bytes.count
            }
        }
        return text
    }

    /// Appends the display (``description``) of the NUL-terminated name `name`, `count` bytes
    /// long, to `output`: the bytes themselves when they are printable ASCII without a backslash
    /// (no copy of the name, for listings of many names), else the escaped text.
    package static func appendDescription(of name: UnsafePointer<CChar>, count: Int, to output: inout [UInt8]) {
        let bytes = UnsafeRawBufferPointer(start: name, count: count)
        guard bytes.allSatisfy({ $0 < 0x80 && showsAsIs(ascii: $0) }) else {
            output.append(contentsOf: FileName(listed: name).description.utf8)
            return
        }
        output.append(contentsOf: bytes)
    }

    /// Whether an ASCII byte shows as itself: printable, and not the backslash that starts escapes.
    private static func showsAsIs(ascii byte: UInt8) -> Bool {
        byte >= 0x20 && byte != 0x7F && byte != UInt8(ascii: "\\")
    }

    private static func escaped(_ byte: UInt8) -> String {
        "\\x" + Hex.string([byte], uppercase: true)
    }
}
