import Foundation

extension KeyedArchive {
    /// The root object as a value (see ``value(at:limits:path:)``).
    ///
    /// - Throws: as ``value(at:limits:path:)``; ``/SandboxCore/SandboxError/Code/corrupt`` when
    ///   ``top`` has no `root` reference.
    public func rootValue(
        limits: PropertyListLimits = .default, path: String? = nil
    ) throws(SandboxError) -> ArchivedValue {
        guard let root else {
            throw KeyedArchiveProblem(path: path).corrupt("its '$top' has no 'root' reference")
        }
        return try value(at: root, limits: limits, path: path)
    }

    /// The object `reference` names, and every object it refers to, as a value.
    ///
    /// An object referenced from several places is read at each (as the property-list readers
    /// do), and charged to `limits` each time, so a small archive of shared objects cannot expand
    /// past them; nesting is bounded by `limits`' depth.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/cyclicReference``
    ///   when an object contains itself (the graph is fine; a value cannot be),
    ///   ``SandboxCore/SandboxError/Code/tooLarge`` past `limits`, ``/SandboxCore/SandboxError/Code/corrupt``
    ///   when an object of one of Foundation's classes lacks its fields or has them of another type.
    public func value(
        at reference: Reference, limits: PropertyListLimits = .default, path: String? = nil
    ) throws(SandboxError) -> ArchivedValue {
        // What the value would produce, counted first over the graph (each object once): a
        // small archive that expands past the limits is refused before anything is built.
        var sizer = KeyedArchiveSizer(archive: self, limits: limits)
        if sizer.cost(of: reference.index, depth: 1) > limits.maximumOutputSize {
            throw SandboxError(
                .tooLarge,
                "\(KeyedArchiveProblem(path: path).name) describes a value beyond the reading limits: it expands to more than \(limits.maximumOutputSize) bytes of values (shared objects count each time they are referenced). It was left as it was; if the file is genuine, read it with larger PropertyListLimits.",
                path: path)
        }
        var reader = KeyedArchiveValueReader(
            archive: self, budget: PropertyListBudget(limits), problem: KeyedArchiveProblem(path: path))
        return try reader.value(at: reference, depth: 1)
    }
}

/// A lower bound of what ``KeyedArchiveValueReader`` charges for an object: 16 bytes per value
/// plus its string's or data's bytes, each time it is referenced, saturating just past the limit.
/// Each object is visited once (memoized), to the depth the limits allow; a cycle counts nothing
/// (the reader refuses it).
private struct KeyedArchiveSizer {
    let archive: KeyedArchive
    let limits: PropertyListLimits
    var costs: [Int: Int] = [:]
    var open = Set<Int>()

    private var cap: Int { limits.maximumOutputSize < Int.max ? limits.maximumOutputSize + 1 : Int.max }

    mutating func cost(of index: Int, depth: Int) -> Int {
        guard index > 0, archive.objects.indices.contains(index) else { return 16 }
        switch archive.objects[index] {
        case .null, .archivedClass: return 16
        case .value(let value): return 16 + Self.payload(value)
        case .instance(_, let fields):
            if let known = costs[index] { return known }
            guard depth <= limits.maximumDepth, !open.contains(index) else { return 0 }
            open.insert(index)
            var total = 16
            for field in fields.values {
                switch field {
                case .reference(let reference): total = add(total, cost(of: reference.index, depth: depth + 1))
                case .references(let references):
                    for reference in references where total < cap {
                        total = add(total, cost(of: reference.index, depth: depth + 1))
                    }
                case .value(let value): total = add(total, 16 + Self.payload(value))
                }
            }
            open.remove(index)
            costs[index] = total
            return total
        }
    }

    private func add(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? cap : min(sum, cap)
    }

    private static func payload(_ value: PreferenceValue) -> Int {
        switch value {
        case .string(let string): string.utf8.count
        case .data(let data): data.count
        default: 0
        }
    }
}

/// Turns a part of the graph into a value: recursive, to a depth the limits bound.
private struct KeyedArchiveValueReader {
    let archive: KeyedArchive
    var budget: PropertyListBudget
    let problem: KeyedArchiveProblem
    /// The objects being read, from the root down: a reference to one of them is a cycle.
    var open = Set<Int>()

    mutating func value(at reference: KeyedArchive.Reference, depth: Int) throws(SandboxError) -> ArchivedValue {
        guard reference.index > 0 else {
            try charge(0)
            return .null
        }
        guard archive.objects.indices.contains(reference.index) else {
            throw problem.corrupt(
                "a reference to object \(reference.index), past the table's \(archive.objects.count) objects")
        }
        switch archive.objects[reference.index] {
        case .null:
            try charge(0)
            return .null
        case .value(let value):
            return try scalar(value, at: reference.index)
        case .archivedClass:
            throw problem.corrupt("a reference to object \(reference.index), a class description, as a value")
        case .instance(let description, let fields):
            guard let archivedClass = archive.archivedClass(description) else {
                throw problem.corrupt("object \(reference.index)'s '$class' is not a class description")
            }
            guard !open.contains(reference.index) else {
                throw SandboxError(
                    .cyclicReference,
                    "\(problem.name) holds a cycle: object \(reference.index) (\(archivedClass.name)) contains itself, so it cannot be read as a value. It was left as it was.",
                    path: problem.path)
            }
            do {
                try budget.enter(depth: depth)
            } catch {
                throw tooLarge(error)
            }
            open.insert(reference.index)
            defer { open.remove(reference.index) }
            return try instance(archivedClass, fields: fields, at: reference.index, depth: depth)
        }
    }

    private mutating func instance(
        _ archivedClass: KeyedArchive.ArchivedClass, fields: [String: KeyedArchive.Field], at index: Int, depth: Int
    ) throws(SandboxError) -> ArchivedValue {
        let what = "object \(index) (\(archivedClass.name))"
        switch archivedClass.name {
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSCountedSet", "NSOrderedSet",
            "NSMutableOrderedSet":
            try charge(0)
            let elements = try values(of: fields["NS.objects"], in: what, key: "NS.objects", depth: depth)
            return archivedClass.name.hasSuffix("Set") && !archivedClass.name.contains("Ordered")
                ? .set(elements) : .array(elements)
        case "NSDictionary", "NSMutableDictionary":
            try charge(0)
            let keys = try values(of: fields["NS.keys"], in: what, key: "NS.keys", depth: depth)
            let objects = try values(of: fields["NS.objects"], in: what, key: "NS.objects", depth: depth)
            guard keys.count == objects.count else {
                throw problem.corrupt("\(what) has \(keys.count) keys but \(objects.count) objects")
            }
            var entries: [ArchivedValue: ArchivedValue] = [:]
            for (key, object) in zip(keys, objects) { entries[key] = object }
            return .dictionary(entries)
        case "NSDate":
            guard case .double(let time)? = try scalarField(fields["NS.time"], in: what, depth: depth) else {
                throw problem.corrupt("\(what) has no 'NS.time' real")
            }
            try charge(0)
            return .date(Date(timeIntervalSinceReferenceDate: time))
        case "NSUUID":
            guard case .data(let bytes)? = try scalarField(fields["NS.uuidbytes"], in: what, depth: depth),
                bytes.count == 16
            else {
                throw problem.corrupt("\(what) has no 16-byte 'NS.uuidbytes'")
            }
            let b = Array(bytes)
            try charge(16)
            return .uuid(
                UUID(
                    uuid: (
                        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                        b[15]
                    )))
        case "NSURL":
            let base = try scalarField(fields["NS.base"], in: what, depth: depth) ?? .null
            guard case .string(let relative)? = try scalarField(fields["NS.relative"], in: what, depth: depth) else {
                throw problem.corrupt("\(what) has no 'NS.relative' string")
            }
            let baseURL: URL?
            switch base {
            case .null: baseURL = nil
            case .url(let url): baseURL = url
            default: throw problem.corrupt("\(what)'s 'NS.base' is neither null nor a URL")
            }
            guard let url = URL(string: relative, relativeTo: baseURL) else {
                throw problem.corrupt("\(what)'s 'NS.relative' is not a URL")
            }
            return .url(url)
        case "NSNull":
            try charge(0)
            return .null
        case "NSString", "NSMutableString":
            guard case .string(let string)? = try scalarField(fields["NS.string"], in: what, depth: depth) else {
                throw problem.corrupt("\(what) has no 'NS.string' string")
            }
            return .string(string)
        case "NSData", "NSMutableData":
            guard
                case .data(let data)? = try scalarField(fields["NS.data"] ?? fields["NS.bytes"], in: what, depth: depth)
            else {
                throw problem.corrupt("\(what) has no 'NS.data' data")
            }
            return .data(data)
        default:
            try charge(archivedClass.name.utf8.count)
            var converted: [String: ArchivedValue] = [:]
            for (key, field) in fields {
                try charge(key.utf8.count)
                converted[key] = try self.field(field, depth: depth)
            }
            return .object(archivedClass, fields: converted)
        }
    }

    /// A field's value: the object it refers to, its list as an array, or the value in place.
    private mutating func field(_ field: KeyedArchive.Field, depth: Int) throws(SandboxError) -> ArchivedValue {
        switch field {
        case .reference(let reference): return try value(at: reference, depth: depth + 1)
        case .references(let references):
            try charge(0)
            var elements: [ArchivedValue] = []
            for reference in references { elements.append(try value(at: reference, depth: depth + 1)) }
            return .array(elements)
        case .value(let value): return try scalar(value, at: nil)
        }
    }

    /// A field that must hold one value (in place or by reference).
    private mutating func scalarField(
        _ field: KeyedArchive.Field?, in what: String, depth: Int
    ) throws(SandboxError) -> ArchivedValue? {
        guard let field else { return nil }
        if case .references = field { throw problem.corrupt("\(what) has a list where one value belongs") }
        return try self.field(field, depth: depth)
    }

    /// The elements of a list field (`NS.objects`, `NS.keys`); a missing or empty one is empty.
    private mutating func values(
        of field: KeyedArchive.Field?, in what: String, key: String, depth: Int
    ) throws(SandboxError) -> [ArchivedValue] {
        switch field {
        case nil, .value(.array([]))?: return []
        case .references(let references)?:
            var elements: [ArchivedValue] = []
            for reference in references { elements.append(try value(at: reference, depth: depth + 1)) }
            return elements
        default: throw problem.corrupt("\(what)'s '\(key)' is not a list of references")
        }
    }

    /// A value stored as itself.
    private mutating func scalar(_ value: PreferenceValue, at index: Int?) throws(SandboxError) -> ArchivedValue {
        switch value {
        case .string(let string):
            try charge(string.utf8.count)
            return .string(string)
        case .integer(let integer):
            try charge(0)
            return .integer(integer)
        case .unsignedInteger(let integer):
            try charge(0)
            return .unsignedInteger(integer)
        case .double(let double):
            try charge(0)
            return .double(double)
        case .bool(let bool):
            try charge(0)
            return .bool(bool)
        case .date(let date):
            try charge(0)
            return .date(date)
        case .data(let data):
            try charge(data.count)
            return .data(data)
        case .array([]):
            try charge(0)
            return .array([])
        case .array, .dictionary:
            let place = index.map { "object \($0)" } ?? "a field"
            throw problem.corrupt("\(place) holds a property-list \(value.typeName) where an object belongs")
        }
    }

    private mutating func charge(_ payload: Int) throws(SandboxError) {
        do {
            try budget.charge(payload)
        } catch {
            throw tooLarge(error)
        }
    }

    private func tooLarge(_ failure: PropertyListReadFailure) -> SandboxError {
        SandboxError(
            .tooLarge,
            "\(problem.name) describes a value beyond the reading limits: \(failure.detail). It was left as it was; if the file is genuine, read it with larger PropertyListLimits.",
            path: problem.path)
    }
}
