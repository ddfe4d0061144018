extension KeyedArchive {
    /// Reads an `NSKeyedArchiver` archive, binary or XML.
    ///
    /// Untrusted input: the property list is read by this store's readers within `limits`; then
    /// every reference must name an entry of the table, every `$class` a class description, and
    /// entry 0 must be `$null`.
    ///
    /// - Parameters:
    ///   - bytes: the archive (untrusted).
    ///   - path: names the file in error messages.
    ///   - limits: how much the property list may build.
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/corrupt`` (not
    ///   a property list, damaged, or not a keyed archive: the detail says which part),
    ///   ``SandboxCore/SandboxError/Code/tooLarge`` past `limits`.
    public init(bytes: [UInt8], path: String? = nil, limits: PropertyListLimits = .default) throws(SandboxError) {
        try self.init(
            propertyList: try PropertyList.value(from: bytes, path: path, limits: limits, readingUIDs: true),
            path: path)
    }

    /// The archive a property list read with UIDs holds.
    init(propertyList: PreferenceValue, path: String?) throws(SandboxError) {
        let problem = KeyedArchiveProblem(path: path)
        guard case .dictionary(let plist) = propertyList else {
            throw problem.corrupt("its top level is not a dictionary")
        }
        guard case .string(Self.archiverName)? = plist["$archiver"] else {
            throw problem.corrupt("its '$archiver' is not '\(Self.archiverName)'")
        }
        guard case .integer(Self.formatVersion)? = plist["$version"] else {
            throw problem.corrupt("its '$version' is not \(Self.formatVersion), the format's only version")
        }
        guard case .array(let table)? = plist["$objects"], case .string("$null")? = table.first else {
            throw problem.corrupt("it has no '$objects' array starting with '$null'")
        }
        guard case .dictionary(let topEntries)? = plist["$top"] else {
            throw problem.corrupt("it has no '$top' dictionary")
        }
        var objects: [Object] = [.null]
        objects.reserveCapacity(table.count)
        for (index, entry) in table.enumerated().dropFirst() {
            objects.append(try Self.object(entry, at: index, count: table.count, problem: problem))
        }
        for (index, object) in objects.enumerated() {
            guard case .instance(let description, _) = object else { continue }
            guard case .archivedClass = objects[description.index] else {
                throw problem.corrupt(
                    "object \(index)'s '$class' refers to object \(description.index), which is not a class description"
                )
            }
        }
        var top: [String: Field] = [:]
        for (key, entry) in topEntries {
            top[key] = try Self.field(entry, count: table.count, problem: problem, at: "'$top' key '\(key)'")
        }
        self.init(objects: objects, top: top)
    }

    /// Entry `index` of `$objects`.
    private static func object(
        _ entry: PreferenceValue, at index: Int, count: Int, problem: KeyedArchiveProblem
    ) throws(SandboxError) -> Object {
        switch entry {
        case .string, .integer, .unsignedInteger, .double, .bool, .data, .date:
            return .value(entry)
        case .array:
            throw problem.corrupt("object \(index) is an array; a keyed archive stores objects as dictionaries")
        case .dictionary(let fields):
            if let name = fields["$classname"] {
                guard case .string(let name) = name else {
                    throw problem.corrupt("object \(index)'s '$classname' is not a string")
                }
                var chain: [String] = []
                switch fields["$classes"] {
                case nil: chain = [name]
                case .array(let names)?:
                    for case .string(let entry) in names { chain.append(entry) }
                    guard chain.count == names.count else {
                        throw problem.corrupt("object \(index)'s '$classes' holds something other than class names")
                    }
                default: throw problem.corrupt("object \(index)'s '$classes' is not an array of class names")
                }
                return .archivedClass(ArchivedClass(name, classes: chain))
            }
            guard let description = fields["$class"] else {
                throw problem.corrupt("object \(index) is a dictionary with neither '$class' nor '$classname'")
            }
            guard
                case .reference(let reference) = try field(
                    description, count: count, problem: problem, at: "object \(index)'s '$class'")
            else {
                throw problem.corrupt("object \(index)'s '$class' is not a reference")
            }
            var converted: [String: Field] = [:]
            for (key, value) in fields where key != "$class" {
                converted[key] = try field(value, count: count, problem: problem, at: "object \(index)'s key '\(key)'")
            }
            return .instance(class: reference, fields: converted)
        }
    }

    /// A field's value: a reference, a list of references, or a value in place.
    private static func field(
        _ value: PreferenceValue, count: Int, problem: KeyedArchiveProblem, at place: String
    ) throws(SandboxError) -> Field {
        if let reference = try Self.reference(value, count: count, problem: problem, at: place) {
            return .reference(reference)
        }
        guard case .array(let elements) = value, !elements.isEmpty else { return .value(value) }
        var references: [Reference] = []
        for element in elements {
            guard let reference = try Self.reference(element, count: count, problem: problem, at: place) else {
                break
            }
            references.append(reference)
        }
        if references.count == elements.count { return .references(references) }
        guard references.isEmpty else {
            throw problem.corrupt("\(place) mixes references and values in one array")
        }
        return .value(value)
    }

    /// The reference `value` spells (`{"CF$UID": n}`), checked against the table's size; nil
    /// when it is no reference.
    private static func reference(
        _ value: PreferenceValue, count: Int, problem: KeyedArchiveProblem, at place: String
    ) throws(SandboxError) -> Reference? {
        guard case .dictionary(let entries) = value, let uid = entries["CF$UID"] else { return nil }
        guard entries.count == 1, case .integer(let index) = uid, index >= 0 else {
            throw problem.corrupt("\(place) holds a malformed UID (a 'CF$UID' that is not a non-negative integer)")
        }
        guard index < count else {
            throw problem.corrupt("\(place) refers to object \(index), but the archive has \(count) objects")
        }
        return Reference(index)
    }
}

/// Builds the errors of one archive's read, naming its file.
struct KeyedArchiveProblem {
    let path: String?

    var name: String { path.map { "'\($0)'" } ?? "The archive" }

    /// A damaged archive: `detail` says what is wrong.
    func corrupt(_ detail: String) -> SandboxError {
        SandboxError(
            .corrupt,
            "\(name) is not a valid NSKeyedArchiver archive: \(detail). It was left as it was.",
            path: path)
    }
}
