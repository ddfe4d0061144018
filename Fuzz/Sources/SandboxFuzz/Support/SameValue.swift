import Foundation
import SandboxStore

extension PreferenceValue {
    /// Equality in which a NaN equals a NaN (and a NaN date a NaN date), so a round trip of a
    /// value holding one still compares equal.
    func isSame(as other: PreferenceValue) -> Bool {
        switch (self, other) {
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.date(let a), .date(let b)):
            a == b || (a.timeIntervalSinceReferenceDate.isNaN && b.timeIntervalSinceReferenceDate.isNaN)
        case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.isSame(as: $1) }
        case (.dictionary(let a), .dictionary(let b)):
            a.count == b.count && a.allSatisfy { key, value in b[key].map { value.isSame(as: $0) } ?? false }
        default: self == other
        }
    }
}
