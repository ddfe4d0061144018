/// Builds nested ``PreferenceValue``s without recursion, for the readers: they open containers,
/// add keys and values, and close containers, and every step is charged to the budget.
struct PropertyListAssembler {
    private enum Frame {
        case array([PreferenceValue])
        case dictionary([String: PreferenceValue], key: String?)
    }

    private var frames: [Frame] = []
    private var result: PreferenceValue?
    private(set) var budget: PropertyListBudget

    init(limits: PropertyListLimits) {
        budget = PropertyListBudget(limits)
    }

    /// How many containers are open.
    var depth: Int { frames.count }

    /// Whether the innermost container is a dictionary waiting for its next key.
    var expectsKey: Bool {
        if case .dictionary(_, nil)? = frames.last { return true }
        return false
    }

    mutating func openArray() throws(PropertyListReadFailure) {
        try open(.array([]))
    }

    mutating func openDictionary() throws(PropertyListReadFailure) {
        try open(.dictionary([:], key: nil))
    }

    private mutating func open(_ frame: Frame) throws(PropertyListReadFailure) {
        try requireRoom()
        try budget.enter(depth: frames.count + 1)
        try budget.charge(0)
        frames.append(frame)
    }

    /// The key of the next value of the innermost dictionary.
    mutating func key(_ key: String) throws(PropertyListReadFailure) {
        guard case .dictionary(let values, nil)? = frames.popLast() else {
            throw .malformed("a key outside a dictionary, or two keys in a row")
        }
        try budget.charge(key.utf8.count)
        frames.append(.dictionary(values, key: key))
    }

    /// A value that holds no others (`payload` bytes of it), placed in the innermost container or
    /// as the top level.
    mutating func add(_ value: PreferenceValue, payload: Int = 0) throws(PropertyListReadFailure) {
        try requireRoom()
        try budget.charge(payload)
        place(value)
    }

    /// Closes the innermost container and places it in its parent.
    mutating func close() throws(PropertyListReadFailure) {
        switch frames.popLast() {
        case .array(let values)?:
            place(.array(values))
        case .dictionary(let values, nil)?:
            place(.dictionary(values))
        case .dictionary(_, let key?)?:
            throw .malformed("the key '\(key)' has no value")
        case nil:
            throw .malformed("a container closed that was never opened")
        }
    }

    /// The top-level value, once everything is closed.
    func finish() throws(PropertyListReadFailure) -> PreferenceValue {
        guard frames.isEmpty, let result else {
            throw .malformed("the property list ends before its value is complete")
        }
        return result
    }

    private func requireRoom() throws(PropertyListReadFailure) {
        if frames.isEmpty, result != nil { throw .malformed("more than one value at the top level") }
        if expectsKey { throw .malformed("a dictionary value has no key") }
    }

    private mutating func place(_ value: PreferenceValue) {
        switch frames.popLast() {
        case .array(var values)?:
            values.append(value)
            frames.append(.array(values))
        case .dictionary(var values, let key?)?:
            values[key] = value
            frames.append(.dictionary(values, key: nil))
        case .dictionary(let values, nil)?:
            frames.append(.dictionary(values, key: nil))  // unreachable: requireRoom refused it
        case nil:
            result = value
        }
    }
}
