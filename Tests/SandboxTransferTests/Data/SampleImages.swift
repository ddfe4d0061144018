import Foundation
import SandboxTesting
import SandboxTransfer

/// Real image files made by other programs: Pillow (Debian's `python3-pil`) for PNG, JPEG
/// (baseline and progressive), GIF and WebP (lossy, lossless, animated), and libheif's `heif-enc`
/// (Debian's `libheif-examples`) for HEIC and AVIF. `scripts/install-test-tools` installs both.
struct SampleImage: Sendable, CustomStringConvertible {
    var name: String
    var expected: ImageInfo
    var bytes: [UInt8]

    var description: String { name }

    /// Makes every sample, 641×479 (odd sizes catch swapped or rounded fields), in `folder`.
    static func make(in folder: String) async throws -> [SampleImage] {
        let python = "/usr/bin/python3"
        let encoder = "/usr/bin/heif-enc"
        for tool in [python, encoder] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw TestFailure("\(tool) is missing: run scripts/install-test-tools (python3-pil, libheif-examples)")
        }
        let script = """
            import sys
            from PIL import Image
            d = sys.argv[1]
            im = Image.new("RGB", (641, 479))
            for x in range(0, 641, 7):
                for y in range(0, 479, 5):
                    im.putpixel((x, y), (x % 256, y % 256, (x * y) % 256))
            im.save(d + "/a.png")
            im.save(d + "/a.jpg", quality=80)
            im.save(d + "/progressive.jpg", progressive=True, optimize=True)
            im.save(d + "/a.gif")
            im.save(d + "/lossy.webp", quality=70)
            im.save(d + "/lossless.webp", lossless=True)
            frames = [im, im.transpose(Image.FLIP_LEFT_RIGHT)]
            frames[0].save(d + "/animated.webp", save_all=True, append_images=frames[1:], duration=100)
            """
        let made = try await BuiltProgram(path: python).run(["-c", script, folder], outputIn: folder)
        guard made.status == 0 else { throw TestFailure("Pillow failed: \(made.stderr)") }
        for (flags, name) in [([String](), "a.heic"), (["-A"], "a.avif")] {
            let encoded = try await BuiltProgram(path: encoder).run(
                flags + ["-o", folder + "/" + name, folder + "/a.png"], outputIn: folder)
            guard encoded.status == 0 else { throw TestFailure("heif-enc failed: \(encoded.stderr)") }
        }
        let formats: [(String, ImageFormat)] = [
            ("a.png", .png), ("a.jpg", .jpeg), ("progressive.jpg", .jpeg), ("a.gif", .gif), ("lossy.webp", .webp),
            ("lossless.webp", .webp), ("animated.webp", .webp), ("a.heic", .heic), ("a.avif", .avif),
        ]
        return try formats.map { name, format in
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            return SampleImage(name: name, expected: ImageInfo(format: format, width: 641, height: 479), bytes: bytes)
        }
    }
}
