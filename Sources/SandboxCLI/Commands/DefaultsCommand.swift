import ArgumentParser
import Foundation
import SandboxCLISupport
import SandboxStore

/// `sandbox defaults <app-id> read [KEY] | write KEY VALUE [--type T] | delete KEY`, like macOS
/// `defaults`.
struct DefaultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "defaults",
        abstract:
            "Read, write and delete an app's preferences (Library/Preferences/<app-id>.plist), like macOS `defaults`.",
        discussion: """
            read [KEY]        print one value, or every stored value
            write KEY VALUE   store a value (--type string, int, double, bool, date, data)
            delete KEY        remove a value

            Dates are written in ISO 8601, data in hex; a VALUE may start with '-' (write n -5 --type int). \
            Writes are atomic, durable and safe while the app (or another `defaults`) writes too. --json \
            prints reals that are not finite as the strings "+infinity", "-infinity" and "nan", dates as \
            ISO 8601 strings and data as base64.
            """
    )

    enum Verb: String, ExpressibleByArgument, CaseIterable {
        case read, write, delete
    }

    enum ValueType: String, ExpressibleByArgument, CaseIterable {
        case string, int, double, bool, date, data
    }

    @OptionGroup var app: AppArgument
    @Argument(help: "read, write or delete.")
    var verb: Verb
    /// KEY and VALUE, taken as they are even when they start with '-' (a negative number).
    @Argument(
        parsing: .allUnrecognized,
        help: "KEY (for read, write and delete) and VALUE (for write); a VALUE may start with '-'.")
    var operands: [String] = []
    @Option(help: "The type of VALUE for write: string, int, double, bool, date or data.")
    var type: ValueType = .string
    @Option(
        help: ArgumentHelp(
            "An App Group's preference suite (Library/Preferences/<group-id>.plist in the group's container) instead of the app's own preferences; the app's signed bundle must list the group.",
            valueName: "group-id"))
    var suite: String?
    @OptionGroup var output: OutputOptions

    var key: String? { operands.first }
    var value: String? { operands.dropFirst().first }

    func validate() throws {
        switch verb {
        case .read:
            guard operands.count <= 1 else {
                throw ValidationError("read takes at most a KEY; got \(operands.count) arguments.")
            }
        case .write:
            guard operands.count == 2 else {
                throw ValidationError("write needs a KEY and a VALUE; got \(operands.count) arguments.")
            }
        case .delete:
            guard operands.count == 1 else {
                throw ValidationError("delete needs exactly a KEY; got \(operands.count) arguments.")
            }
        }
    }

    func run() throws {
        let container = try app.container()
        let preferences: Preferences
        if let suite {
            preferences = try container.preferences(suite: AppGroupIdentifier(suite))
        } else {
            preferences = try container.preferences()
        }
        switch verb {
        case .read:
            try read(preferences)
        case .write:
            guard let key, let value else { return }
            try preferences.setValue(try Self.parse(value, as: type), forKey: key)
        case .delete:
            guard let key else { return }
            guard preferences.storedValues[key] != nil else { throw missing(key, in: preferences) }
            try preferences.removeValue(forKey: key)
        }
    }

    private func read(_ preferences: Preferences) throws {
        let stored = preferences.storedValues
        if let key {
            guard let value = stored[key] else { throw missing(key, in: preferences) }
            if output.json { return try Output.json(JSONPreference(value)) }
            try Output.line(value.description)
            return
        }
        if output.json { return try Output.json(stored.mapValues(JSONPreference.init)) }
        try Output.line("{")
        for (name, value) in stored.sorted(by: { $0.key < $1.key }) { try Output.line("    \(name) = \(value);") }
        try Output.line("}")
    }

    private func missing(_ key: String, in preferences: Preferences) -> SandboxError {
        SandboxError(
            .notFound,
            "The key '\(key)' does not exist in the preferences of \(preferences.app) ('\(preferences.path)').",
            path: preferences.path.description)
    }

    /// `VALUE` as the type asked for.
    static func parse(_ text: String, as type: ValueType) throws(SandboxError) -> PreferenceValue {
        func invalid(_ expected: String) -> SandboxError {
            SandboxError(.invalidValue, "'\(text)' is not \(expected).")
        }
        switch type {
        case .string:
            return .string(text)
        case .int:
            if let value = Int(text) { return .integer(value) }
            guard let value = UInt64(text) else {
                throw invalid("an integer from -9223372036854775808 to 18446744073709551615")
            }
            return PreferenceValue(value)
        case .double:
            guard let value = Double(text), value.isFinite else { throw invalid("a finite number") }
            return .double(value)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw invalid("a bool (true, false, yes, no, 1 or 0)")
            }
        case .date:
            guard let date = PreferenceValue.date(iso8601: text) else {
                throw invalid("an ISO 8601 date in UTC such as 2026-11-21T09:30:00.250Z")
            }
            return .date(date)
        case .data:
            guard let bytes = Hex.bytes(text.utf8) else {
                throw invalid("hex bytes such as 'cafe01'")
            }
            return .data(Data(bytes))
        }
    }
}

/// A preference as JSON: dates as ISO 8601 strings with fractional seconds, data as base64, reals
/// that JSON cannot hold (infinities, NaN) as the strings XML property lists use. Encoding cannot fail.
struct JSONPreference: Encodable {
    let value: PreferenceValue

    init(_ value: PreferenceValue) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .unsignedInteger(let value): try container.encode(value)
        case .double(let value) where value.isFinite: try container.encode(value)
        case .double(let value): try container.encode(value.isNaN ? "nan" : value < 0 ? "-infinity" : "+infinity")
        case .bool(let value): try container.encode(value)
        case .date: try container.encode(value.description)
        case .data(let value): try container.encode(value.base64EncodedString())
        case .array(let values): try container.encode(values.map(JSONPreference.init))
        case .dictionary(let values): try container.encode(values.mapValues(JSONPreference.init))
        }
    }
}
