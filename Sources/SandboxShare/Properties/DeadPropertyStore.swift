import Glibc
import Logging
import Sandbox
import SandboxCore
import SandboxStore

/// The dead properties clients set with PROPPATCH, kept in the items' user extended attributes:
/// one attribute per property (``DeadPropertyRecord``). They travel with the file: a MOVE keeps
/// them, and the core's copy copies them.
///
/// An attribute that is not a record this store wrote (written by something else, or damaged) is
/// skipped and logged, never served.
package struct DeadPropertyStore: Sendable {
    /// The largest value stored, in bytes of its XML fragment: a larger one is `507`.
    package static let maximumValueSize = 64 * 1024
    /// The most dead properties on one item by default: one more is `507`. (On ext4, whose
    /// attributes share one 4 KiB block per item, the file system refuses far fewer first.)
    package static let defaultMaximumPropertyCount = 256

    /// The shared folder.
    package let root: ConfinedRoot
    /// The most dead properties on one item: one more is `507`.
    package let maximumPropertyCount: Int
    /// The server's logger: skipped and damaged properties are reported where its requests are.
    let logger: Logger
    /// How a listing reads its members' properties (``MemberLookup``): the fallback can be forced,
    /// so that tests compare the two.
    package var memberLookup = MemberLookup.fromFolder

    /// A store on `root`, logging to the caller's `logger` (no default: a library never invents one).
    package init(
        root: ConfinedRoot, maximumPropertyCount: Int = defaultMaximumPropertyCount,
        logger: Logger
    ) {
        self.root = root
        self.maximumPropertyCount = maximumPropertyCount
        self.logger = logger
    }

    /// The dead properties of the item at `path`, by name, each value an XML fragment; none on a
    /// file system without extended attributes.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` from the file system (``/SandboxCore/SandboxError/Code/notFound``…).
    package func properties(at path: ContainerPath) throws(SandboxError) -> [PropertyName: String] {
        let file: OwnedDescriptor
        do throws(SandboxError) {
            // `f*xattr` refuse `O_PATH` descriptors: open for reading, without blocking on a FIFO.
            file = try root.open(path, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY)
        } catch {
            throw .fileSystem(error, path: path.description, doing: "read the properties of")
        }
        return try properties(ofOpen: file.rawValue, path: path.description)
    }

    /// ``properties(at:)`` of the item open as `descriptor` (for reading: `f*xattr` refuse
    /// `O_PATH`), named `path` in errors and logs: a listing opens each member from its folder's
    /// descriptor instead of from the root.
    ///
    /// - Throws: as ``properties(at:)``.
    package func properties(ofOpen descriptor: CInt, path: String) throws(SandboxError) -> [PropertyName: String] {
        let attributes: [String]
        do throws(SandboxError) {
            attributes = try ExtendedAttributes.names(fd: descriptor, path: path)
        } catch  where error.code == .unsupported {
            return [:]
        } catch {
            throw .fileSystem(error, path: path, doing: "read the properties of")
        }
        return try properties(among: attributes, path: path) { attribute throws(SandboxError) in
            try ExtendedAttributes.value(of: attribute, fd: descriptor, path: path)
        }
    }

    /// The dead properties among the extended attributes `attributes` of the item at `path`, each
    /// attribute's bytes read with `value` (`nil`: it is gone).
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` when a value cannot be read.
    func properties(
        among attributes: [String], path: String, value: (String) throws(SandboxError) -> [UInt8]?
    ) throws(SandboxError) -> [PropertyName: String] {
        var properties: [PropertyName: String] = [:]
        for attribute in attributes where attribute.hasPrefix(DeadPropertyRecord.attributePrefix) {
            let raw: [UInt8]?
            do throws(SandboxError) {
                raw = try value(attribute)
            } catch {
                throw .fileSystem(error, path: path, doing: "read the properties of")
            }
            guard let bytes = raw else { continue }
            guard let record = DeadPropertyRecord(decoding: bytes, attribute: attribute),
                let value = Self.wellFormed(record.value)
            else {
                logger.warning(
                    "Skipped a dead property that this server did not write, or that is damaged",
                    metadata: ["path": "\(path)", "attribute": "\(attribute)", "bytes": "\(bytes.count)"])
                continue
            }
            // A record of a property the server computes was planted (PROPPATCH refuses them; an
            // app can set any attribute of its own files): served, it would stand beside the
            // real value (a second `getetag`, a forged `oc:checksums`).
            guard !Self.isComputed(record.name) else {
                logger.warning(
                    "Skipped a dead property record of a property the server computes",
                    metadata: ["path": "\(path)", "attribute": "\(attribute)"])
                continue
            }
            properties[record.name] = value
        }
        return properties
    }

    /// The names of the dead properties of the item at `path`, sorted.
    ///
    /// - Throws: as ``properties(at:)``.
    package func names(at path: ContainerPath) throws(SandboxError) -> [PropertyName] {
        try properties(at: path).keys.sorted()
    }

    /// Copies the dead properties of `source` to `destination` (a collection copied with depth 0:
    /// the core's copy of a file or a tree copies them itself).
    ///
    /// - Throws: ``SandboxError`` from the file system; none where it has no extended attributes.
    package func copy(from source: ContainerPath, to destination: ContainerPath) throws(SandboxError) {
        let names: [String]
        do throws(SandboxError) {
            names = try root.extendedAttributeNames(at: source).filter {
                $0.hasPrefix(DeadPropertyRecord.attributePrefix)
            }
        } catch  where error.code == .unsupported {
            return
        }
        for name in names {
            guard let value = try root.extendedAttribute(named: name, at: source) else { continue }
            try root.setExtendedAttribute(named: name, to: value, at: destination)
        }
    }

    /// A stored value that parses back as XML content, in the canonical form the parser gives;
    /// `nil` for anything else, so a response never carries ill-formed XML.
    private static func wellFormed(_ value: String) -> String? {
        do throws(SandboxError) {
            let wrapper = try XMLDocumentParser.parse(Array("<v>\(value)</v>".utf8), what: "a stored property")
            return wrapper.contentFragment
        } catch {
            return nil
        }
    }

    func attributeNames(at path: ContainerPath) throws(SandboxError) -> [String] {
        do throws(SandboxError) {
            return try root.extendedAttributeNames(at: path).filter {
                $0.hasPrefix(DeadPropertyRecord.attributePrefix)
            }
        } catch  where error.code == .unsupported {
            return []
        } catch {
            throw .fileSystem(error, path: path.description, doing: "read the properties of")
        }
    }

    func rawValue(_ attribute: String, at path: ContainerPath) throws(SandboxError) -> [UInt8]? {
        do throws(SandboxError) {
            return try root.extendedAttribute(named: attribute, at: path)
        } catch {
            throw .fileSystem(error, path: path.description, doing: "read the properties of")
        }
    }
}
