extension Preferences {
    /// The namespace for typed keys: declare them as static members of an extension, as with
    /// sindresorhus/Defaults.
    ///
    ///     extension Preferences.Keys {
    ///         static let volume = Preferences.Key<Double>("volume", default: 0.8)
    ///     }
    ///     let volume = preferences[.volume]
    ///     try preferences.set(0.5, for: .volume)
    ///
    /// A class (not final) only so that keys declared on it are found as `.volume` where a
    /// `Key<Double>` is expected. Its only state is the immutable name.
    public class Keys: @unchecked Sendable {
        /// The name the value is stored under.
        public let name: String

        fileprivate init(name: String) {
            self.name = name
        }
    }

    /// A key with a value type and a default: the value read when nothing is stored under the
    /// name, nothing is registered for it, or what is stored has another type.
    public final class Key<Value: PreferenceRepresentable>: Keys, @unchecked Sendable {
        /// The default value.
        public let defaultValue: Value

        /// A key named `name` whose value defaults to `defaultValue`.
        public init(_ name: String, default defaultValue: Value) {
            self.defaultValue = defaultValue
            super.init(name: name)
        }
    }
}
