import Foundation
import SandboxStore

extension PreferenceValue {
    /// The value with every type spelled out (`int(1)`, `bool(true)`, `string("1")`), for
    /// invariant messages: ``description`` prints `1` for all three. A switch without a default,
    /// so that a new case fails the build here.
    var typed: String {
        switch self {
        case .string(let value): "string(\(value.debugDescription))"
        case .integer(let value): "int(\(value))"
        case .unsignedInteger(let value): "uint(\(value))"
        case .double(let value): "real(\(value))"
        case .bool(let value): "bool(\(value))"
        case .date(let value): "date(\(value.timeIntervalSinceReferenceDate))"
        case .data(let value): "data(\(Array(value)))"
        case .array(let values): "[" + values.map(\.typed).joined(separator: ", ") + "]"
        case .dictionary(let values):
            "{"
                + values.sorted { $0.key < $1.key }.map { "\($0.key.debugDescription): \($0.value.typed)" }.joined(
                    separator: ", ") + "}"
        }
    }
}
