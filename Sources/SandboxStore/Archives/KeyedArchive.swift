/// An archive in the format of Apple's `NSKeyedArchiver`, as an object graph: what iOS apps write
/// with `NSKeyedArchiver` and read with `NSKeyedUnarchiver`, and what this store's ``Archiver``
/// writes.
///
/// The archive is a property list (binary, or XML) of four keys:
///
///     { "$archiver": "NSKeyedArchiver", "$version": 100000,
///       "$objects": ["$null", …], "$top": { "root": <UID 1> } }
///
/// `$objects` is a table: index 0 is `$null` (a reference to it is `nil`); strings, numbers and
/// data stand in it as themselves; every other object is a dictionary whose `$class` refers to a
/// class description (`$classname` and the `$classes` chain) and whose other keys are its fields.
/// References are UIDs: binary property lists' UID objects, or `{"CF$UID": n}` in XML. An object
/// referenced twice is stored once, and a graph may hold cycles.
///
/// ``objects`` and ``top`` keep the graph as the file has it, checked: every reference is in range,
/// every `$class` is a class description. ``value(at:limits:path:)`` turns a part of it into an
/// ``ArchivedValue`` tree, reading Foundation's classes (`NSArray`, `NSDictionary`, `NSSet`,
/// `NSDate`, `NSUUID`, `NSURL`, `NSNull`, `NSMutableString`, `NSMutableData` and their mutable
/// variants) as their values, and any other class as an ``ArchivedValue/object(_:fields:)``.
public struct KeyedArchive: Sendable, Hashable {
    /// A reference to an entry of ``KeyedArchive/objects``: a UID of the file. Index 0 is `$null`.
    public struct Reference: Sendable, Hashable {
        /// The entry's index in ``KeyedArchive/objects``.
        public var index: Int

        /// The reference to entry `index`.
        public init(_ index: Int) {
            self.index = index
        }

        /// The reference to `$null`: `nil`.
        public static let null = Reference(0)
    }

    /// A class description: the class's name and its chain of classes, most specific first (the
    /// class itself, its superclasses, up to `NSObject`).
    public struct ArchivedClass: Sendable, Hashable {
        /// The class's name (`$classname`).
        public var name: String
        /// The class and its superclasses (`$classes`).
        public var classes: [String]

        /// - Parameters:
        ///   - name: the class name (`$classname`).
        ///   - classes: the chain (`$classes`); `[name, "NSObject"]` when not given.
        public init(_ name: String, classes: [String]? = nil) {
            self.name = name
            self.classes = classes ?? [name, "NSObject"]
        }
    }

    /// The value of one key of an object, or of ``KeyedArchive/top``.
    public enum Field: Sendable, Hashable {
        /// An object, by reference (`encodeObject(_:forKey:)`).
        case reference(Reference)
        /// A list of references (an `NSArray`'s or an `NSDictionary`'s `NS.objects`).
        case references([Reference])
        /// A value stored in place (`encodeInteger`, `encodeDouble`, `encodeBool`, `encodeBytes`).
        case value(PreferenceValue)
    }

    /// One entry of ``KeyedArchive/objects``.
    public enum Object: Sendable, Hashable {
        /// `$null`, entry 0.
        case null
        /// A string, number or data stored as itself (`NSString`, `NSNumber`, `NSData`).
        case value(PreferenceValue)
        /// A class description, which instances refer to with their `$class`.
        case archivedClass(ArchivedClass)
        /// An object of the class `class` refers to, with its fields.
        case instance(class: Reference, fields: [String: Field])
    }

    /// The value of `$archiver`.
    public static let archiverName = "NSKeyedArchiver"
    /// The value of `$version`: the only version of the format.
    public static let formatVersion = 100_000
    /// The key of the root object in ``top``.
    public static let rootKey = "root"

    /// The object table; entry 0 is ``Object/null``.
    public var objects: [Object]
    /// The top-level keys, `root` among them.
    public var top: [String: Field]

    /// An archive of the given table and top-level keys (checked when it is encoded).
    public init(objects: [Object], top: [String: Field]) {
        self.objects = objects
        self.top = top
    }

    /// The root object's reference, when ``top`` has one.
    public var root: Reference? {
        if case .reference(let reference)? = top[Self.rootKey] { return reference }
        return nil
    }

    /// The class description `reference` names (nil if it names none).
    public func archivedClass(_ reference: Reference) -> ArchivedClass? {
        guard objects.indices.contains(reference.index),
            case .archivedClass(let description) = objects[reference.index]
        else { return nil }
        return description
    }
}
