import CQRencode
import Glibc
import SandboxCore

/// A QR code (libqrencode, error correction level M), drawn for a terminal or as a bitmap, with
/// the quiet zone of ``quietZone`` light modules around it that readers need to find it.
package struct QRCode: Sendable {
    /// The light modules around the code on every side (ISO/IEC 18004 asks for four).
    package static let quietZone = 4

    /// The modules on a side, without the quiet zone.
    package let size: Int
    /// Row by row, `true` for a dark module.
    private let modules: [Bool]

    /// The code of `text`, encoded as bytes (UTF-8).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/internalError`` when libqrencode cannot encode it
    ///   (longer than a QR code holds, or out of memory).
    package init(_ text: String) throws(SandboxError) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            throw SandboxError(
                .internalError,
                "The QR code of '\(text.prefix(100))' could not be made: \(String(cString: strerror(errno))).")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard let data = code.pointee.data else {
            throw SandboxError(.internalError, "libqrencode returned a QR code without modules.")
        }
        // Bit 0 of each byte is the module's colour; the others say what the module is for.
        size = width
        modules = (0..<width * width).map { data[$0] & 1 == 1 }
    }

    /// The modules on a side with the quiet zone.
    package var sideWithQuietZone: Int { size + 2 * Self.quietZone }

    /// Whether the module at `row`, `column` (counted from the quiet zone's corner) is dark.
    package func isDark(row: Int, column: Int) -> Bool {
        let (y, x) = (row - Self.quietZone, column - Self.quietZone)
        guard (0..<size).contains(y), (0..<size).contains(x) else { return false }
        return modules[y * size + x]
    }

    /// The code for a terminal: two rows of modules a line, in half blocks (`▀ ▄ █`) drawn black
    /// on white whatever the terminal's colours (a phone's camera needs dark on light), or with
    /// `ascii`, two characters a module (`##` dark, spaces light) and no colours, for a terminal
    /// without them (dark on light only if its theme is).
    package func terminalText(ascii: Bool = false) -> String {
        let side = sideWithQuietZone
        var lines: [String] = []
        if ascii {
            for row in 0..<side {
                lines.append(String((0..<side).map { isDark(row: row, column: $0) ? "##" : "  " }.joined()))
            }
            return lines.joined(separator: "\n")
        }
        // 256-colour black (16) on white (231): the basic palette's "white" is grey in many themes.
        let blackOnWhite = "\u{1B}[38;5;16;48;5;231m"
        let reset = "\u{1B}[0m"
        for row in stride(from: 0, to: side, by: 2) {
            var line = blackOnWhite
            for column in 0..<side {
                switch (isDark(row: row, column: column), isDark(row: row + 1, column: column)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line + reset)
        }
        return lines.joined(separator: "\n")
    }

    /// The code as a plain PBM image (`P1`, `1` dark), `scale` pixels a module, quiet zone included.
    package func portableBitmap(scale: Int = 4) -> String {
        let scale = max(1, scale)
        let side = sideWithQuietZone
        var text = "P1\n\(side * scale) \(side * scale)\n"
        for row in 0..<side {
            let line = (0..<side).map { isDark(row: row, column: $0) ? "1" : "0" }
                .flatMap { Array(repeating: $0, count: scale) }.joined(separator: " ")
            text += String(repeating: line + "\n", count: scale)
        }
        return text
    }
}
