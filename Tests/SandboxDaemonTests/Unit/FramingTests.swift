import Foundation
import SandboxStore
import Testing

@testable import SandboxTransfer

/// The frame decoder and the messages, without I/O: hostile and broken input gets a precise
/// error, never a crash or an allocation the input asked for.
@Suite struct FramingTests {
    private func frame(_ text: String) throws -> [UInt8] {
        try FrameEncoder.frame(Array(text.utf8))
    }

    @Test func splitsFramesWhateverTheReadBoundaries() throws {
        let stream = try frame("{\"a\":1}") + frame("") + frame("second")
        for cut in 0...stream.count {
            var decoder = FrameDecoder()
            var bodies: [String] = []
            decoder.append(stream[..<cut])
            while let body = try decoder.nextFrame() { bodies.append(String(decoding: body, as: UTF8.self)) }
            decoder.append(stream[cut...])
            while let body = try decoder.nextFrame() { bodies.append(String(decoding: body, as: UTF8.self)) }
            #expect(bodies == ["{\"a\":1}", "", "second"], "cut at \(cut)")
            try decoder.finish()
        }
    }

    /// Found by the daemon-frames fuzz target: the same message encoded twice gave its keys in
    /// different orders. Messages are encoded with sorted keys, so a message has one encoding.
    @Test func aMessageHasOneEncodingWithSortedKeys() throws {
        let hello = ClientMessage.hello(.init(app: "com.example.a", session: "s", home: "/h", attach: true))
        let submit = ClientMessage.submit(
            BackgroundRequest(DownloadRequest(url: try #require(URL(string: "http://h/x")))), id: 3)
        for message in [
            hello, submit, .acknowledge(9), .relaunch(.init(arguments: ["/bin/true"], timeLimitSeconds: 1), id: 4),
        ] {
            let once = try WireCoding.encode(message)
            let body = Array(once.dropFirst(4))
            let again = try WireCoding.encode(try WireCoding.decode(ClientMessage.self, from: body))
            #expect(once == again)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            let keys = object.keys.map { "\"\($0)\":" }
            let positions = try keys.sorted().map { key in
                try #require(String(decoding: body, as: UTF8.self).range(of: key)).lowerBound
            }
            #expect(positions == positions.sorted(), "\(String(decoding: body, as: UTF8.self))")
        }
    }

    @Test func refusesAnOversizedLengthBeforeItsBodyArrives() {
        var decoder = FrameDecoder(maximumSize: 1024)
        decoder.append([0xFF, 0xFF, 0xFF, 0xFF])  // 4 GiB declared, nothing sent
        #expect(throws: SandboxError.self) { try decoder.nextFrame() }
        do {
            _ = try decoder.nextFrame()
        } catch {
            #expect(error.code == .tooLarge)
            #expect(error.message.contains("4294967295"))
        }
        var exact = FrameDecoder(maximumSize: 4)
        exact.append([0, 0, 0, 4, 1, 2, 3, 4])
        #expect((try? exact.nextFrame()) == [1, 2, 3, 4])
    }

    @Test func encoderRefusesAnOversizedBody() {
        #expect(throws: SandboxError.self) { try FrameEncoder.frame([UInt8](repeating: 0, count: 5), maximumSize: 4) }
    }

    @Test func aTruncatedFrameIsReportedAtTheEnd() throws {
        var decoder = FrameDecoder()
        decoder.append(try frame("hello").dropLast(2))
        #expect(try decoder.nextFrame() == nil)
        do {
            try decoder.finish()
            Issue.record("a truncated frame passed")
        } catch {
            #expect(error.code == .protocolViolation)
            #expect(error.message.contains("7 bytes"))
        }
        var header = FrameDecoder()
        header.append([0, 0])
        #expect(throws: SandboxError.self) { try header.finish() }
    }

    @Test(arguments: ["", "not json", "[1,2]", "{\"type\":\"launch-missiles\"}", "{\"type\":7}", "\u{FF}"])
    func malformedMessagesAreProtocolViolations(body: String) {
        do {
            _ = try WireCoding.decode(ClientMessage.self, from: Array(body.utf8))
            Issue.record("'\(body)' decoded")
        } catch {
            #expect(error.code == .protocolViolation)
        }
    }

    @Test func unknownFieldsAreIgnored() throws {
        let body = """
            {"type":"hello","protocolVersion":1,"future":{"x":[1,2]},
             "hello":{"app":"com.example.a","home":"/h","attach":true,"colour":"blue"}}
            """
        try WireCoding.checkHelloVersion(Array(body.utf8))
        let message = try WireCoding.decode(ClientMessage.self, from: Array(body.utf8))
        #expect(message.hello == ClientMessage.Hello(app: "com.example.a", session: nil, home: "/h", attach: true))
        let event = try WireCoding.decode(
            BackgroundEventRecord.self,
            from: Array(#"{"sequence":3,"taskID":1,"kind":"completed","newField":true}"#.utf8))
        #expect(event.sequence == 3 && event.kind == .completed && event.error == nil)
    }

    @Test(arguments: [0, 2, 99])
    func anotherVersionIsRefusedClearly(version: Int) {
        let body = #"{"type":"hello","protocolVersion":\#(version),"hello":{"shape":"unknown"}}"#
        do {
            try WireCoding.checkHelloVersion(Array(body.utf8))
            Issue.record("version \(version) accepted")
        } catch {
            #expect(error.code == .protocolVersion)
            #expect(error.message.contains("version \(version)"))
            #expect(error.message.contains(version > 1 ? "update sandboxd" : "rebuild the app"))
        }
    }

    @Test func aHelloWithoutVersionOrNotFirstIsRefused() {
        #expect(throws: SandboxError.self) { try WireCoding.checkHelloVersion(Array(#"{"type":"hello"}"#.utf8)) }
        #expect(throws: SandboxError.self) { try WireCoding.checkHelloVersion(Array(#"{"type":"list"}"#.utf8)) }
    }

    @Test func messagesRoundTrip() throws {
        let request = BackgroundRequest(
            DownloadRequest(url: try #require(URL(string: "http://h/x")), destination: .caches))
        let messages: [ClientMessage] = [
            .hello(.init(app: "a.b", session: "s", home: "/h", attach: false)), .submit(request, id: 4), .list(id: 5),
            .cancel(task: 2, id: 6), .acknowledge(9), .status(id: 1),
        ]
        for message in messages {
            var decoder = FrameDecoder()
            decoder.append(try WireCoding.encode(message))
            let body = try #require(try decoder.nextFrame())
            #expect(try WireCoding.decode(ClientMessage.self, from: body) == message)
        }
        let failure = DaemonMessage.failure(SandboxError(.protocolVersion, "old"), requestID: 3)
        var decoder = FrameDecoder()
        decoder.append(try WireCoding.encode(failure))
        let decoded = try WireCoding.decode(DaemonMessage.self, from: try #require(try decoder.nextFrame()))
        #expect(decoded.error.code == .protocolVersion && decoded.requestID == 3)
    }
}
