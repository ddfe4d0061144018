import Foundation
import SandboxStore

extension FuzzTarget {
    /// `KeyedArchive(bytes:path:)` and its `rootValue`: any `NSKeyedArchiver` archive, binary or
    /// XML. A graph that reads writes back (binary and XML) and reads back to the same bytes; a
    /// root value that reads is written as a new archive whose value reads back the same.
    static let keyedArchive = FuzzTarget(
        name: "keyed-archive",
        run: { bytes in
            let path = "Documents/state.archive"
            let archive: KeyedArchive
            do throws(SandboxError) {
                archive = try KeyedArchive(bytes: bytes, path: path, limits: limits)
            } catch {
                refused(error, path: path, among: ["corrupt", "too-large"])
                return
            }
            do {
                let binary = try archive.encoded()
                let again = try KeyedArchive(bytes: binary, path: path, limits: .default)
                invariant(try again.encoded() == binary, "a read archive does not write back to the same bytes")
                if let xml = try? archive.encoded(format: .xml) {  // a string XML cannot carry is refused: that is fine
                    invariant(
                        try KeyedArchive(bytes: xml, path: path, limits: .default).encoded() == binary,
                        "a read archive written as XML reads back to another graph")
                }
            } catch {
                invariant(false, "a read archive cannot be written and read again: \(error)")
            }
            let value: ArchivedValue
            do throws(SandboxError) {
                value = try archive.rootValue(limits: limits, path: path)
            } catch {
                refused(error, path: path, among: ["corrupt", "too-large", "cyclic-reference"])
                return
            }
            do {
                let written = try KeyedArchive(root: value).encoded()
                let reread = try KeyedArchive(bytes: written, path: path, limits: .default).rootValue(path: path)
                invariant(
                    try KeyedArchive(root: reread).encoded() == written,
                    "a root value does not round-trip: \(value) became \(reread)")
            } catch {
                invariant(false, "a root value cannot be archived and read again: \(error)")
            }
        },
        seeds: {
            let root: ArchivedValue = .dictionary([
                .string("title"): .string("Groceries"), .string("count"): .integer(2), .string("done"): .bool(false),
                .string("when"): .date(Date(timeIntervalSinceReferenceDate: 1000.5)),
                .string("items"): .array([.string("milk"), .string("eggs"), .string("milk")]),
                .string("tags"): .set([.string("home")]), .string("none"): .null,
                .string("id"): .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))),
                .string("link"): .url(URL(fileURLWithPath: "/tmp/a")),
                .string("note"): .object(
                    KeyedArchive.ArchivedClass("Note", classes: ["Note", "NSObject"]),
                    fields: ["body": .data(Data([1, 2, 3])), "rank": .double(0.5)]),
            ])
            var seeds: [String: [UInt8]] = [:]
            do {
                for format in PropertyListFormat.allCases {
                    seeds["values-\(format).archive"] = try KeyedArchive(root: root).encoded(format: format)
                }
            } catch {
                fatalError("sandbox-fuzz: cannot make the keyed-archive seeds: \(error)")
            }
            return seeds
        })

    /// Small enough that the fuzzer reaches the limits.
    private static let limits = PropertyListLimits(maximumDepth: 64, maximumOutputSize: 1 << 20)

    private static func refused(_ error: SandboxError, path: String, among codes: Set<String>) {
        expectRefusal(code: error.code.rawValue, among: codes, message: error.message, for: "KeyedArchive")
        invariant(error.message.contains(path), "the refusal does not name '\(path)': \(error.message)")
    }
}
