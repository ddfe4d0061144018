import Foundation

extension KeyedArchive {
    /// The archive of `root`, as `NSKeyedArchiver` would write the same objects: equal values are
    /// stored once and referenced wherever they occur; dictionaries' entries in a stable order.
    ///
    /// Foundation's classes are written with their immutable names (`NSArray`, `NSDictionary`,
    /// `NSSet`, …); in an ``ArchivedValue/object(_:fields:)``, integers, reals and booleans are
    /// stored in place (as `encodeInteger`, `encodeDouble`, `encodeBool` do) and a null field as
    /// the `$null` reference; ``ArchivedValue/null`` anywhere else is an `NSNull`.
    public init(root: ArchivedValue) {
        var builder = KeyedArchiveBuilder()
        let reference = builder.reference(for: root)
        self.init(objects: builder.objects, top: [Self.rootKey: .reference(reference)])
    }

    /// The archive as a property list.
    ///
    /// - Parameter format: ``PropertyListFormat/binary`` (UID objects for references, as Apple
    ///   writes) or ``PropertyListFormat/xml`` (`{"CF$UID": n}` dictionaries).
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/encodingFailed``
    ///   when the graph is not an archive (entry 0 not ``Object/null``, a reference out of range, a
    ///   `$class` that names no class description, a container stored as an object) or, for XML, a
    ///   string XML cannot carry.
    public func encoded(format: PropertyListFormat = .binary) throws(SandboxError) -> [UInt8] {
        let plist = try propertyList()
        return format == .xml ? try XMLPropertyListWriter.write(plist) : KeyedArchiveBinaryWriter.write(plist)
    }

    /// The property list of the archive, references as `{"CF$UID": n}`.
    private func propertyList() throws(SandboxError) -> PreferenceValue {
        guard objects.first == .null else { throw Self.unwritable("its entry 0 is not $null") }
        var table: [PreferenceValue] = []
        table.reserveCapacity(objects.count)
        for (index, object) in objects.enumerated() {
            switch object {
            case .null:
                table.append(.string("$null"))
            case .value(let value):
                switch value {
                case .array, .dictionary:
                    throw Self.unwritable("object \(index) is a \(value.typeName) stored as itself")
                default: table.append(value)
                }
            case .archivedClass(let description):
                table.append(
                    .dictionary([
                        "$classname": .string(description.name),
                        "$classes": .array(description.classes.map(PreferenceValue.string)),
                    ]))
            case .instance(let description, let fields):
                guard archivedClass(description) != nil else {
                    throw Self.unwritable(
                        "object \(index)'s class is entry \(description.index), which is not a class description")
                }
                var entries: [String: PreferenceValue] = ["$class": uid(description)]
                for (key, field) in fields {
                    guard key != "$class" else { throw Self.unwritable("object \(index) has a field named '$class'") }
                    entries[key] = try propertyList(field, at: "object \(index)'s key '\(key)'")
                }
                table.append(.dictionary(entries))
            }
        }
        var topEntries: [String: PreferenceValue] = [:]
        for (key, field) in top { topEntries[key] = try propertyList(field, at: "'$top' key '\(key)'") }
        return .dictionary([
            "$archiver": .string(Self.archiverName), "$version": .integer(Self.formatVersion),
            "$objects": .array(table), "$top": .dictionary(topEntries),
        ])
    }

    private func propertyList(_ field: Field, at place: String) throws(SandboxError) -> PreferenceValue {
        switch field {
        case .reference(let reference):
            try check(reference, at: place)
            return uid(reference)
        case .references(let references):
            var uids: [PreferenceValue] = []
            for reference in references {
                try check(reference, at: place)
                uids.append(uid(reference))
            }
            return .array(uids)
        case .value(let value):
            return value
        }
    }

    private func check(_ reference: Reference, at place: String) throws(SandboxError) {
        guard objects.indices.contains(reference.index) else {
            throw Self.unwritable("\(place) refers to entry \(reference.index) of \(objects.count)")
        }
    }

    private func uid(_ reference: Reference) -> PreferenceValue {
        .dictionary(["CF$UID": .integer(reference.index)])
    }

    private static func unwritable(_ detail: String) -> SandboxError {
        SandboxError(.encodingFailed, "The keyed archive cannot be written: \(detail).")
    }
}

/// Builds an archive's table from values, storing each distinct object once.
struct KeyedArchiveBuilder {
    private(set) var objects: [KeyedArchive.Object] = [.null]
    private var indices: [KeyedArchive.Object: Int] = [.null: 0]

    /// The reference of `object`, added unless an equal one is there.
    mutating func add(_ object: KeyedArchive.Object) -> KeyedArchive.Reference {
        // Objects holding a real are not shared: 0.0 == -0.0 would lose the sign.
        let holdsReal: Bool
        switch object {
        case .value(.double): holdsReal = true
        case .instance(_, let fields):
            holdsReal = fields.values.contains { if case .value(.double) = $0 { true } else { false } }
        default: holdsReal = false
        }
        if !holdsReal, let index = indices[object] { return KeyedArchive.Reference(index) }
        objects.append(object)
        if !holdsReal { indices[object] = objects.count - 1 }
        return KeyedArchive.Reference(objects.count - 1)
    }

    private mutating func instance(
        _ name: String, classes: [String]? = nil, _ fields: [String: KeyedArchive.Field]
    ) -> KeyedArchive.Reference {
        let description = add(.archivedClass(KeyedArchive.ArchivedClass(name, classes: classes)))
        return add(.instance(class: description, fields: fields))
    }

    /// The reference of `value`, its parts added first.
    mutating func reference(for value: ArchivedValue) -> KeyedArchive.Reference {
        switch value {
        case .null: return instance("NSNull", [:])
        case .string(let string): return add(.value(.string(string)))
        case .integer(let integer): return add(.value(.integer(integer)))
        case .unsignedInteger(let integer): return add(.value(PreferenceValue(integer)))
        case .double(let double): return add(.value(.double(double)))
        case .bool(let bool): return add(.value(.bool(bool)))
        case .data(let data): return add(.value(.data(data)))
        case .date(let date):
            return instance("NSDate", ["NS.time": .value(.double(date.timeIntervalSinceReferenceDate))])
        case .array(let elements):
            return instance("NSArray", ["NS.objects": .references(elements.map { reference(for: $0) })])
        case .set(let elements):
            return instance("NSSet", ["NS.objects": .references(elements.map { reference(for: $0) })])
        case .dictionary(let entries):
            let sorted = entries.sorted { String(describing: $0.key) < String(describing: $1.key) }
            let keys = sorted.map { reference(for: $0.key) }
            let values = sorted.map { reference(for: $0.value) }
            return instance("NSDictionary", ["NS.keys": .references(keys), "NS.objects": .references(values)])
        case .uuid(let uuid):
            return instance("NSUUID", ["NS.uuidbytes": .value(.data(withUnsafeBytes(of: uuid.uuid) { Data($0) }))])
        case .url(let url):
            let base = url.baseURL.map { reference(for: .url($0)) } ?? .null
            let relative = add(.value(.string(url.relativeString)))
            return instance("NSURL", ["NS.base": .reference(base), "NS.relative": .reference(relative)])
        case .object(let description, let fields):
            var stored: [String: KeyedArchive.Field] = [:]
            for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
                switch field {
                case .integer(let integer): stored[key] = .value(.integer(integer))
                case .double(let double): stored[key] = .value(.double(double))
                case .bool(let bool): stored[key] = .value(.bool(bool))
                case .null: stored[key] = .reference(.null)
                default: stored[key] = .reference(reference(for: field))
                }
            }
            return instance(description.name, classes: description.classes, stored)
        }
    }
}
