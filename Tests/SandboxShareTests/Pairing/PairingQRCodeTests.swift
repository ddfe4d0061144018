import Foundation
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxShare

/// The pairing link's QR code, read back by a real decoder (`zbarimg`, Debian's zbar-tools).
@Suite struct PairingQRCodeTests {
    @Test(
        .enabled(if: ExternalTool.available("zbarimg")),
        arguments: [
            "http://127.0.0.1:8080/.sandbox/pair/\(PairingToken.generate().value)",
            "https://[fe80::1]:65535/.sandbox/pair/\(PairingToken.generate().value)",
        ])
    func zbarimgReadsTheLinkBack(link: String) async throws {
        let scratch = try ScratchDirectory.make(prefix: "sandbox-qr")
        defer { scratch.remove() }
        let image = scratch.appending("code.pbm")
        try QRCode(link).portableBitmap(scale: 4).write(toFile: image, atomically: false, encoding: .utf8)
        let decoded = try await ExternalTool.run(
            "zbarimg", ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", image], outputIn: scratch.path)
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(decoded.stdout.trimmingCharacters(in: .newlines) == link)
    }

    @Test func theTerminalCodeIsBlackOnWhiteWithAQuietZone() throws {
        let code = try QRCode("http://127.0.0.1:8080/.sandbox/pair/\(PairingToken.generate().value)")
        let side = code.sideWithQuietZone
        let lines = code.terminalText().split(separator: "\n")
        #expect(lines.count == (side + 1) / 2)
        for line in lines {
            #expect(line.hasPrefix("\u{1B}[38;5;16;48;5;231m") && line.hasSuffix("\u{1B}[0m"))
        }
        // Two rows of quiet zone per line: the first two lines are blank.
        #expect(lines[0].allSatisfy { !"▀▄█".contains($0) } && lines[1].allSatisfy { !"▀▄█".contains($0) })
        let ascii = code.terminalText(ascii: true).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(ascii.count == side && ascii.allSatisfy { $0.count == 2 * side })
        #expect(!code.terminalText(ascii: true).contains("\u{1B}"))
    }

    @Test func textLongerThanAQRCodeHoldsIsAnError() {
        #expect(throws: SandboxError.self) { try QRCode(String(repeating: "x", count: 4000)) }
    }
}
