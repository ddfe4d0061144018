import Foundation

/// An HTTP response as it came off the wire.
struct RawResponse: Sendable, CustomStringConvertible {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// The first header named `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    var description: String {
        let head = headers.map { "\($0.name): \($0.value)" }.joined(separator: "; ")
        return "\(status) [\(head)] \(text.prefix(300))"
    }

    /// The response at the start of `buffer` when all of it has arrived (removed from `buffer`;
    /// interim `1xx` responses are dropped), else `nil`.
    static func complete(in buffer: inout [UInt8], toHead: Bool) -> RawResponse? {
        while let (status, headers, bodyStart) = head(of: buffer) {
            if (100..<200).contains(status) {
                buffer.removeFirst(bodyStart)
                continue
            }
            var response = RawResponse(status: status, headers: headers, body: [])
            if toHead || status == 204 || status == 304 {
                buffer.removeFirst(bodyStart)
                return response
            }
            if let length = response.header("Content-Length").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            {
                guard buffer.count - bodyStart >= length else { return nil }
                response.body = Array(buffer[bodyStart..<bodyStart + length])
                buffer.removeFirst(bodyStart + length)
                return response
            }
            if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
                guard let (body, end) = dechunk(buffer[bodyStart...]) else { return nil }
                response.body = body
                buffer.removeFirst(end - buffer.startIndex)
                return response
            }
            return nil  // delimited by the end of the stream
        }
        return nil
    }

    /// The response in `buffer` once the stream has ended (its body is what is left).
    static func atEndOfStream(_ buffer: [UInt8]) -> RawResponse? {
        var rest = buffer
        if let response = complete(in: &rest, toHead: false) { return response }
        guard let (status, headers, bodyStart) = head(of: rest) else { return nil }
        return RawResponse(status: status, headers: headers, body: Array(rest[bodyStart...]))
    }

    /// The status, headers and where the body starts, once the head is complete.
    private static func head(of buffer: [UInt8]) -> (Int, [(name: String, value: String)], Int)? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        guard buffer.count >= 4,
            let end = (0...(buffer.count - 4)).first(where: { buffer[$0..<$0 + 4].elementsEqual(terminator) })
        else { return nil }
        let lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines.first?.split(separator: " ") ?? []
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return (status, headers, end + 4)
    }

    /// The decoded body of a chunked message and the index just past it, once it is complete.
    private static func dechunk(_ bytes: ArraySlice<UInt8>) -> ([UInt8], Int)? {
        var body: [UInt8] = []
        var index = bytes.startIndex
        while true {
            guard let lineEnd = (index..<bytes.endIndex).first(where: { bytes[$0] == 10 }) else { return nil }
            let sizeText =
                String(decoding: bytes[index..<lineEnd], as: UTF8.self)
                .split(separator: ";").first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard let size = Int(sizeText, radix: 16) else { return nil }
            index = lineEnd + 1
            if size == 0 {
                guard let end = (index..<bytes.endIndex).first(where: { bytes[$0] == 10 }) else { return nil }
                return (body, end + 1)  // no trailers expected
            }
            guard bytes.endIndex - index >= size + 2 else { return nil }
            body += bytes[index..<index + size]
            index += size + 2
        }
    }
}
