extension FileName {
    /// The name numbered for a clash, the way iOS names a second copy: `report.pdf` numbered 2
    /// is `report 2.pdf`; number 1 is the name itself. A leading dot does not start an extension
    /// (`.profile 2`). Works on the name's bytes, so a name that is not UTF-8 is numbered like
    /// any other. The Inbox's deliveries and the sharing page's uploads both number this way.
    package func numbered(_ number: Int) -> FileName {
        guard number > 1 else { return self }
        let bytes = self.bytes
        let suffix = Array(" \(number)".utf8)
        if let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot != bytes.startIndex {
            return FileName(uncheckedBytes: bytes[..<dot] + suffix + bytes[dot...])
        }
        return FileName(uncheckedBytes: bytes + suffix)
    }
}
