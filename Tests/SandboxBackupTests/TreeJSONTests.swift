import Foundation
import GRDB
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// The tree and `Manifest.db` encode each node once (``TreeJSON``); their bytes must stay what
/// encoding the whole array made before.
@Suite struct TreeJSONTests {
    static func node(_ path: [UInt8], kind: TreeNode.Kind = .file, everything: Bool = false) -> TreeNode {
        TreeNode(
            path: Data(path), kind: kind, mode: 0o644, uid: 1000, gid: 1000, size: everything ? 1 << 40 : 12,
            modified: Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789),
            accessed: everything ? Timestamp(seconds: -1, nanoseconds: 999_999_999) : nil,
            extendedAttributes: everything ? ["user.b": Data([0, 255]), "user.a": Data("x/y\"z".utf8)] : nil,
            chunks: kind == .file ? [String(repeating: "ab", count: 32), String(repeating: "0f", count: 32)] : nil,
            target: kind == .symlink ? Data("../a/b\\c".utf8) : nil,
            hardLinkTo: everything ? Data([0x66, 0xFF, 0x2F]) : nil, source: everything ? "sqlite-online-backup" : nil,
            inode: UInt64.max, device: 2049, changed: Timestamp(seconds: 0, nanoseconds: 0))
    }

    /// Fixed trees: empty, one node, names that are not UTF-8, escapes, every optional field.
    static let trees: [[TreeNode]] = [
        [],
        [node(Array("Documents".utf8), kind: .directory)],
        [
            node(Array("Documents".utf8), kind: .directory),
            node(Array("Documents/é \"quoted\"/\\slash".utf8)),
            node([0x44, 0x6F, 0x63, 0x2F, 0xFF, 0xFE, 0x00, 0x0A], everything: true),
            node(Array("Library/link".utf8), kind: .symlink),
            node(Array("tmp/\u{1F600}\t\u{7}".utf8), everything: true),
        ],
    ]

    @Test(arguments: trees) func theTreeIsByteForByteTheEncodedArray(_ nodes: [TreeNode]) throws {
        #expect(TreeJSON.encode(nodes) == RepositoryJSON.encode(nodes))
        var tree = TreeJSON()
        for node in nodes {
            #expect(Array(tree.append(node)) == RepositoryJSON.encode(node))
        }
        #expect(tree.count == nodes.count)
        let bytes = tree.finish()
        #expect(try JSONDecoder.repository.decode([TreeNode].self, from: Data(bytes)) == nodes)
    }

    static func randomBytes(_ random: inout SeededGenerator, upTo count: Int) -> [UInt8] {
        (0..<Int.random(in: 0...count, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// Strings with what JSON escapes: quotes, backslashes, slashes, every control character,
    /// DEL, and characters beyond ASCII.
    static func randomString(_ random: inout SeededGenerator) -> String {
        let pieces =
            ["\"", "\\", "/", "a", "Z", "0", "\u{7F}", "é", "😀", "\u{2028}", " "]
            + (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        return (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }
            .joined()
    }

    static func randomTimestamp(_ random: inout SeededGenerator) -> Timestamp {
        Timestamp(
            seconds: [Int64.min, -1, 0, 1_700_000_000, Int64.max, Int64.random(in: .min ... .max, using: &random)]
                .randomElement(using: &random) ?? 0,
            nanoseconds: Int64.random(in: 0..<1_000_000_000, using: &random))
    }

    /// Nodes with every field at random, optionals present or not: the writer's JSON is the
    /// encoder's, byte for byte (extended attributes go to the encoder, and are checked too).
    @Test func theWriterMatchesTheEncoderOnRandomNodes() {
        var random = SeededGenerator(seed: 30)
        for round in 0..<5_000 {
            let node = Self.randomNode(&random, attributes: round % 50 == 0)
            var tree = TreeJSON()
            let element = tree.append(node)
            let expected = RepositoryJSON.encode(node)
            #expect(
                Array(element) == expected,
                "\(String(decoding: element, as: UTF8.self)) != \(String(decoding: expected, as: UTF8.self))")
            if Array(element) != expected { return }
        }
    }

    static func randomNode(_ random: inout SeededGenerator, attributes: Bool) -> TreeNode {
        let kind: TreeNode.Kind = [.file, .directory, .symlink].randomElement(using: &random) ?? .file
        return TreeNode(
            path: Data(Self.randomBytes(&random, upTo: 40)), kind: kind,
            mode: UInt32.random(in: 0...UInt32.max, using: &random),
            uid: UInt32.random(in: 0...UInt32.max, using: &random),
            gid: [0, UInt32.max].randomElement(using: &random) ?? 0,
            size: Int64.random(in: .min ... .max, using: &random),
            modified: Self.randomTimestamp(&random),
            accessed: Bool.random(using: &random) ? Self.randomTimestamp(&random) : nil,
            extendedAttributes: attributes
                ? [Self.randomString(&random): Data(Self.randomBytes(&random, upTo: 9))] : nil,
            chunks: Bool.random(using: &random)
                ? (0..<Int.random(in: 0...3, using: &random)).map { _ in Self.randomString(&random) } : nil,
            target: Bool.random(using: &random) ? Data(Self.randomBytes(&random, upTo: 20)) : nil,
            hardLinkTo: Bool.random(using: &random) ? Data(Self.randomBytes(&random, upTo: 20)) : nil,
            source: Bool.random(using: &random) ? Self.randomString(&random) : nil,
            inode: UInt64.random(in: 0...UInt64.max, using: &random),
            device: [0, UInt64.max, 2049].randomElement(using: &random) ?? 0,
            changed: Self.randomTimestamp(&random))
    }

    /// The canonical reader reads back every tree the writer makes without extended attributes,
    /// and gives up (to Foundation's decoder) on one with them; the nodes are the same either way.
    @Test func theCanonicalReaderReadsWhatTheWriterWrites() throws {
        var random = SeededGenerator(seed: 31)
        var read = 0
        for _ in 0..<600 {
            let nodes = (0..<Int.random(in: 0...8, using: &random)).map { _ in
                Self.randomNode(&random, attributes: false)
            }
            let bytes = TreeJSON.encode(nodes)
            // Strings beyond ASCII (never in a backup's own trees: ids, kinds, sources) are left
            // to Foundation, which checks their UTF-8.
            let ascii = nodes.allSatisfy { node in
                ((node.chunks ?? []) + [node.source ?? ""]).allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } }
            }
            let canonical = CanonicalTreeReader.read(bytes)
            #expect(ascii ? canonical == nodes : canonical == nil)
            if canonical != nil { read += 1 }
            #expect(try TreeJSON.decode(bytes) == nodes)
        }
        #expect(read > 50)  // so the canonical reader's own reading was checked
        let attributed = [Self.randomNode(&random, attributes: true)]
        #expect(CanonicalTreeReader.read(TreeJSON.encode(attributed)) == nil)
        #expect(try TreeJSON.decode(TreeJSON.encode(attributed)) == attributed)
    }

    /// Damaged trees (bytes changed, inserted, removed, cut short): the canonical reader gives up
    /// or reads exactly what Foundation's decoder reads, never a tree Foundation refuses.
    @Test func aDamagedTreeIsReadAsFoundationReadsItOrLeftToIt() {
        var random = SeededGenerator(seed: 32)
        // A tree the canonical reader reads whole (its strings ASCII), so the damage is what it meets.
        var nodes: [TreeNode] = []
        var valid: [UInt8] = []
        repeat {
            nodes = (0..<4).map { _ in Self.randomNode(&random, attributes: false) }
            valid = TreeJSON.encode(nodes)
        } while CanonicalTreeReader.read(valid) != nodes
        let alphabet = Array(#"0123456789-+.eE{}[],:"\/ubfnrtaA=xyz"#.utf8) + [0, 0x1F, 0x7F, 0xC3, 0xFF, 0x20, 0x0A]
        var accepted = 0
        for _ in 0..<20_000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                guard !bytes.isEmpty else { break }
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[at] = alphabet.randomElement(using: &random) ?? 0
                case 1: bytes.insert(alphabet.randomElement(using: &random) ?? 0, at: at)
                case 2: bytes.remove(at: at)
                default: bytes.removeSubrange(at...)
                }
            }
            guard let canonical = CanonicalTreeReader.read(bytes) else { continue }
            accepted += 1
            let foundation = try? JSONDecoder.repository.decode([TreeNode].self, from: Data(bytes))
            #expect(foundation == canonical, "\(String(decoding: bytes, as: UTF8.self))")
            if foundation != canonical { return }
        }
        #expect(accepted > 100)  // some damage still reads (a digit changed), so the check ran
    }

    /// A backup's tree and its `Manifest.db` rows hold the same JSON of each node.
    @Test func theManifestRowsHoldEachNodesJSON() async throws {
        try await BackupFixture.with { fixture in
            // 1,000 nodes: a tree of ~400 KB, taken from the encoder 64 KiB at a time.
            for index in 0..<1_000 {
                try fixture.container.root.writeContents(
                    Array("file \(index)".utf8), to: ContainerPath("Documents/\(index).txt"), options: [])
            }
            let repository = try fixture.repository()
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            let snapshot = try #require(try await repository.snapshots().last)
            let path = fixture.hostPath("tmp/Manifest.db")
            // Repository reads block: on a thread of their own, not the test's pool.
            let (treeBytes, nodes) = try await OwnedThread.run(name: "tree-json-test") {
                () throws(SandboxError) in
                let part = try SnapshotTree.part(of: BackupFixture.app.rawValue, in: snapshot)
                let treeBytes = try repository.loadSplit(part.tree)
                let nodes = try SnapshotTree.nodes(of: part, in: snapshot, from: repository)
                let manifest = try repository.loadSplit(part.manifest)
                try fixture.container.root.writeContents(manifest, to: ContainerPath("tmp/Manifest.db"), options: [])
                return (treeBytes, nodes)
            }
            let rows = try DatabaseQueue(path: path).read { db in
                try Row.fetchAll(db, sql: "SELECT fileID, domain, relativePath, flags, file FROM Files")
            }
            #expect(nodes.count > 1_000)
            #expect(treeBytes.count > 256 << 10)
            #expect(treeBytes == RepositoryJSON.encode(nodes))
            #expect(rows.count == nodes.count)
            let byPath = Dictionary(uniqueKeysWithValues: rows.map { (($0["relativePath"] as String?) ?? "", $0) })
            let domain = "AppDomain-" + BackupFixture.app.rawValue
            for node in nodes {
                let row = try #require(byPath[node.displayPath])
                #expect(row["file"] as Data? == Data(RepositoryJSON.encode(node)))
                #expect(row["domain"] as String? == domain)
                let fileID = ManifestDatabase.fileID(domain: domain, relativePath: node.displayPath)
                #expect(row["fileID"] as String? == fileID)
                #expect(row["flags"] as Int? == ManifestDatabase.flags(node.kind))
            }
        }
    }
}
