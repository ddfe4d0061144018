import Foundation
import Sandbox
import SandboxCore

extension TaskRecord {
    /// The record as `JSONEncoder` writes it (sorted keys, ISO 8601 dates to the second, `/`
    /// escaped), written by hand: every completed download appends its record to the checkpoint,
    /// and the encoder's generic containers cost more than the rest of the checkpoint. `nil` for a
    /// date this writer does not cover (before 1970 or after 9999), which the encoder then writes.
    func jsonBytes() -> [UInt8]? {
        var writer = JSONLineWriter()
        writer.bytes.reserveCapacity(512)
        var object = writer.beginObject()
        object.key("bytesOnDisk", &writer)
        writer.integer(bytesOnDisk)
        object.key("createdAt", &writer)
        guard writer.date(createdAt) else { return nil }
        if let destination {
            object.key("destination", &writer)
            var nested = writer.beginObject()
            nested.string("filename", destination.filename, &writer)
            nested.string("folder", destination.folder.rawValue, &writer)
            writer.endObject()
        }
        if let expectedDigest {
            object.key("expectedDigest", &writer)
            var nested = writer.beginObject()
            nested.string("algorithm", expectedDigest.algorithm.rawValue, &writer)
            nested.string("hex", expectedDigest.hex, &writer)
            writer.endObject()
        }
        if let expectedLength {
            object.key("expectedLength", &writer)
            writer.integer(expectedLength)
        }
        object.string("finalURL", finalURL, &writer)
        object.key("headers", &writer)
        var headerObject = writer.beginObject()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { headerObject.string(name, value, &writer) }
        writer.endObject()
        object.key("id", &writer)
        writer.integer(Int64(id))
        object.string("lastRestartReason", lastRestartReason?.rawValue, &writer)
        object.string("originalURL", originalURL, &writer)
        object.string("partialName", partialName, &writer)
        object.key("phase", &writer)
        writer.phase(phase)
        object.string("suggestedFilename", suggestedFilename, &writer)
        object.key("updatedAt", &writer)
        guard writer.date(updatedAt) else { return nil }
        if let validator {
            object.key("validator", &writer)
            var outer = writer.beginObject()
            let (name, value) =
                switch validator {
                case .entityTag(let tag): ("entityTag", tag)
                case .lastModified(let date): ("lastModified", date)
                }
            outer.key(name, &writer)
            var inner = writer.beginObject()
            inner.string("_0", value, &writer)
            writer.endObject()
            writer.endObject()
        }
        writer.endObject()
        return writer.bytes
    }
}

/// The few JSON forms a ``TaskRecord`` needs, appended to ``bytes``.
private struct JSONLineWriter {
    var bytes: [UInt8] = []

    /// An object being written: it knows whether a member came before.
    struct Object {
        private var first = true

        /// A member whose value is the string `value`; nothing when it is `nil`.
        mutating func string(_ name: String, _ value: String?, _ writer: inout JSONLineWriter) {
            guard let value else { return }
            key(name, &writer)
            writer.string(value)
        }

        mutating func key(_ name: String, _ writer: inout JSONLineWriter) {
            if !first { writer.bytes.append(UInt8(ascii: ",")) }
            first = false
            writer.string(name)
            writer.bytes.append(UInt8(ascii: ":"))
        }
    }

    mutating func beginObject() -> Object {
        bytes.append(UInt8(ascii: "{"))
        return Object()
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func integer(_ value: Int64) {
        ASCIIDecimal.append(value, to: &bytes)
    }

    mutating func boolean(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// A string, escaped as `JSONEncoder` escapes it.
    mutating func string(_ value: String) {
        JSONText.appendString(value.utf8, to: &bytes)
    }

    /// `date` as ISO 8601 in UTC to the second (`2026-11-25T01:27:36Z`), as the encoder's `.iso8601`
    /// strategy writes it; `false` (nothing written) outside 1970...9999.
    mutating func date(_ date: Date) -> Bool {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds >= 0, seconds < 253_402_300_800 else { return false }
        let total = Int64(seconds)
        let (days, secondOfDay) = total.quotientAndRemainder(dividingBy: 86_400)
        let (year, month, day) = ProlepticGregorian.civil(fromDays: days)
        bytes.append(UInt8(ascii: "\""))
        CivilTime.appendDigits(year, 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        CivilTime.appendDigits(month, 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        CivilTime.appendDigits(day, 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        CivilTime.appendDigits(secondOfDay / 3600, 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        CivilTime.appendDigits(secondOfDay / 60 % 60, 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        CivilTime.appendDigits(secondOfDay % 60, 2, to: &bytes)
        bytes.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
        return true
    }

    /// A phase as the synthesized `Codable` writes an enum: `{"case":{labels…}}`.
    mutating func phase(_ phase: TaskRecord.Phase) {
        var outer = beginObject()
        switch phase {
        case .active:
            outer.key("active", &self)
            _ = beginObject()
        case .finishing(let name):
            outer.key("finishing", &self)
            var inner = beginObject()
            inner.string("name", name, &self)
        case .completed(let path):
            outer.key("completed", &self)
            var inner = beginObject()
            inner.string("path", path, &self)
        case .failed(let code, let message, let resumable):
            outer.key("failed", &self)
            var inner = beginObject()
            inner.string("code", code, &self)
            inner.string("message", message, &self)
            inner.key("resumable", &self)
            boolean(resumable)
        }
        endObject()
        endObject()
    }
}
