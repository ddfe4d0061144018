/// One key's change, as ``Preferences/changes(checkingEvery:)`` reports it.
public struct PreferenceChange: Sendable, Hashable {
    /// Where the change came from.
    public enum Origin: String, Sendable, Hashable {
        /// Made through this ``Preferences`` instance.
        case local
        /// Found in the file: written by another process (or another instance in this one).
        case external
    }

    /// The key that changed.
    public var key: String
    /// The stored value before, `nil` when there was none.
    public var oldValue: PreferenceValue?
    /// The stored value now, `nil` when it was removed.
    public var newValue: PreferenceValue?
    /// Whether this instance made the change or found it in the file.
    public var origin: Origin

    /// A change as ``Preferences/changes(checkingEvery:)`` reports it; for tests.
    public init(key: String, oldValue: PreferenceValue?, newValue: PreferenceValue?, origin: Origin) {
        self.key = key
        self.oldValue = oldValue
        self.newValue = newValue
        self.origin = origin
    }

    /// The changes that turn `old` into `new`, sorted by key.
    static func between(
        _ old: [String: PreferenceValue], _ new: [String: PreferenceValue], origin: Origin
    ) -> [PreferenceChange] {
        Set(old.keys).union(new.keys).sorted().compactMap { key in
            old[key] == new[key]
                ? nil : PreferenceChange(key: key, oldValue: old[key], newValue: new[key], origin: origin)
        }
    }
}
