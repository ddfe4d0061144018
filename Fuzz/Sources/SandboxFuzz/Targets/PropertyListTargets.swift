import Foundation
import SandboxStore

extension FuzzTarget {
    /// Binary property lists (`bplist00`). Seeds: python3's plistlib and the store's own encoder.
    static let binaryPropertyList = FuzzTarget(
        name: "binary-plist", run: checkPropertyList, seeds: { propertyListSeeds(.binary) })

    /// XML property lists. Seeds: python3's plistlib and the store's own encoder.
    static let xmlPropertyList = FuzzTarget(
        name: "xml-plist", run: checkPropertyList, seeds: { propertyListSeeds(.xml) })

    /// `PropertyList.value(from:)` (the store's own readers) and `PropertyList.decode(_:from:)`
    /// (the same, then Foundation's decoder). Refusals are `corrupt` or `too-large` (and
    /// `type-mismatch` for a decode). A value that reads writes back, in binary always and in XML
    /// unless a string holds what XML cannot carry, and reads back as the same value.
    @Sendable private static func checkPropertyList(_ bytes: [UInt8]) {
        let value: PreferenceValue
        do throws(SandboxError) {
            value = try PropertyList.value(from: bytes)
        } catch {
            expectRefusal(
                code: error.code.rawValue, among: ["corrupt", "too-large"], message: error.message,
                for: "PropertyList.value(from:)")
            return
        }
        do throws(SandboxError) {
            _ = try PropertyList.decode(PreferenceValue.self, from: bytes)
        } catch {
            expectRefusal(
                code: error.code.rawValue, among: ["type-mismatch"], message: error.message,
                for: "PropertyList.decode of a property list that reads")
        }
        for format in PropertyListFormat.allCases {
            let encoded: [UInt8]
            do throws(SandboxError) {
                encoded = try PropertyList.encode(value, format: format)
            } catch {
                expectRefusal(
                    code: error.code.rawValue, among: ["encoding-failed"], message: error.message,
                    for: "PropertyList.encode(\(format))")
                // Binary refuses only a bare top-level value; XML also a string it cannot carry.
                if format == .binary, case .array = value {
                    invariant(false, "a property list that reads does not write back: \(error)")
                }
                if format == .binary, case .dictionary = value {
                    invariant(false, "a property list that reads does not write back: \(error)")
                }
                continue
            }
            do throws(SandboxError) {
                let again = try PropertyList.value(from: encoded)
                // XML keeps whole seconds of dates; every other value must come back as it was.
                invariant(
                    format == .xml ? again.isSame(asIgnoringDates: value) : again.isSame(as: value),
                    "a \(format) round trip changed \(value.typed) to \(again.typed)")
            } catch {
                invariant(false, "the store cannot read the \(format) property list it wrote: \(error)")
            }
        }
    }

    /// Property lists written by the store's encoder, of every value type.
    private static func propertyListSeeds(_ format: PropertyListFormat) -> [String: [UInt8]] {
        let values: [String: PreferenceValue] = [
            "scalars": .dictionary([
                "string": .string("héllo wörld ✓"), "int": .integer(-42), "big": .integer(Int.max),
                "real": .double(3.25),
                "bool": .bool(true), "date": .date(Date(timeIntervalSinceReferenceDate: 700_000_000.5)),
                "data": .data(Data([0, 1, 2, 0xFF])),
            ]),
            "nested": .array([
                .array([.dictionary(["a": .array([.integer(1), .string("x")])])]), .dictionary([:]), .array([]),
            ]),
            "shared": .array(Array(repeating: .string("same"), count: 20) + Array(repeating: .integer(7), count: 20)),
        ]
        var seeds: [String: [UInt8]] = [:]
        for (name, value) in values {
            do {
                seeds["store-\(name).plist"] = try PropertyList.encode(value, format: format)
            } catch {
                fatalError("sandbox-fuzz: cannot encode the seed \(name): \(error)")
            }
        }
        return seeds
    }
}

extension PreferenceValue {
    /// ``isSame(as:)``, with dates compared to the second (XML keeps whole seconds; a writer may
    /// round either way, and `-1e-28` rounds to a whole second away).
    func isSame(asIgnoringDates other: PreferenceValue) -> Bool {
        switch (self, other) {
        case (.date(let a), .date(let b)):
            a.isSameSecond(as: b)
        case (.array(let a), .array(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.isSame(asIgnoringDates: $1) }
        case (.dictionary(let a), .dictionary(let b)):
            a.count == b.count
                && a.allSatisfy { key, value in b[key].map { value.isSame(asIgnoringDates: $0) } ?? false }
        default: isSame(as: other)
        }
    }
}

extension Date {
    fileprivate func isSameSecond(as other: Date) -> Bool {
        let a = timeIntervalSinceReferenceDate
        let b = other.timeIntervalSinceReferenceDate
        return (a.isNaN && b.isNaN) || abs(a - b) <= 1 || a == b
    }
}
