import Foundation
@_spi(Fuzzing) import SandboxTransfer

extension FuzzTarget {
    /// sandboxd's wire protocol (issue 13): what any local process of the user can send to the
    /// daemon's socket, and what an app reads back.
    ///
    /// The first byte picks the read sizes; the rest is the byte stream. Decoding in those reads
    /// gives the same frames (or the same refusal) as in one read; each frame is within the limit
    /// and re-framing them gives back the bytes consumed; refusals are `too-large` or
    /// `protocol-violation`. Each frame is then read as a hello, a request and a daemon message:
    /// refusals carry the documented codes; what reads encodes again to a body that reads back and
    /// encodes to the same bytes.
    static let daemonFrames = FuzzTarget(
        name: "daemon-frames",
        run: { input in
            guard let first = input.first else { return }
            let bytes = Array(input.dropFirst())
            let readSizes = [Int(first & 0x0F) + 1, Int(first >> 4) * 7 + 1, 3]
            let limit = 4096
            let frames: [[UInt8]]
            do throws(SandboxError) {
                frames = try BackgroundProtocolFuzzEntryPoints.frames(
                    in: bytes, readSizes: readSizes, maximumSize: limit)
            } catch {
                expectRefusal(
                    code: error.code.description, among: ["too-large", "protocol-violation"], message: error.message,
                    for: "the frame decoder")
                do throws(SandboxError) {
                    _ = try BackgroundProtocolFuzzEntryPoints.frames(in: bytes, readSizes: [], maximumSize: limit)
                    invariant(false, "the frame decoder refuses bytes read in pieces that it accepts whole")
                } catch let whole {
                    invariant(whole.code == error.code, "the frame decoder's refusal depends on the read sizes")
                }
                return
            }
            do throws(SandboxError) {
                let whole = try BackgroundProtocolFuzzEntryPoints.frames(in: bytes, readSizes: [], maximumSize: limit)
                invariant(whole == frames, "the frames depend on the read sizes")
                var framed: [UInt8] = []
                for frame in frames {
                    invariant(frame.count <= limit, "a frame of \(frame.count) bytes passed the \(limit)-byte limit")
                    framed += try BackgroundProtocolFuzzEntryPoints.frame(frame, maximumSize: limit)
                }
                invariant(framed == bytes, "the frames, framed again, are not the bytes they came from")
            } catch {
                invariant(false, "frames that decoded in pieces fail whole or cannot be framed again: \(error)")
            }
            for frame in frames.prefix(8) {
                check(frame, as: "a hello", among: ["protocol-violation", "protocol-version"]) {
                    (body: [UInt8]) throws(SandboxError) in try BackgroundProtocolFuzzEntryPoints.readHello(body)
                }
                check(frame, as: "a client message", among: ["protocol-violation"]) {
                    (body: [UInt8]) throws(SandboxError) in
                    try BackgroundProtocolFuzzEntryPoints.readClientMessage(body)
                }
                check(frame, as: "a daemon message", among: ["protocol-violation"]) {
                    (body: [UInt8]) throws(SandboxError) in
                    try BackgroundProtocolFuzzEntryPoints.readDaemonMessage(body)
                }
            }
        },
        seeds: {
            let messages = [
                #"{"type":"hello","protocolVersion":1,"hello":{"app":"com.example.a","session":"s","home":"/h","attach":true}}"#,
                #"{"type":"submit","requestID":2,"request":{"url":"http://127.0.0.1:8080/a","headers":{"Accept":"*/*"},"waitsForConnectivity":true,"isDiscretionary":false}}"#,
                #"{"type":"relaunch","requestID":3,"relaunch":{"arguments":["/bin/true"],"timeLimitSeconds":30.5}}"#,
                #"{"type":"acknowledge","sequence":9007199254740993}"#,
                #"{"type":"event","event":{"sequence":4,"taskID":1,"kind":"retry","attempt":2,"delayMilliseconds":1500,"errorCode":"timed-out","errorMessage":"x"}}"#,
                #"{"type":"tasks","requestID":5,"tasks":[{"session":"s","taskID":1,"url":"http://h/","state":"running","bytesWritten":10}]}"#,
                #"{"type":"hello","protocolVersion":2,"unknown":[1,2,3]}"#,
            ]
            var seeds: [String: [UInt8]] = [:]
            for (index, message) in messages.enumerated() {
                let body = Array(message.utf8)
                let length = UInt32(body.count)
                let prefix = [
                    UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
                ]
                seeds["message-\(index)"] = [UInt8(index * 37 & 0xFF)] + prefix + body
            }
            seeds["oversized"] = [0x21, 0x7F, 0xFF, 0xFF, 0xFF, 0x7B]
            seeds["cut"] = [0x05, 0x00, 0x00, 0x00, 0x10, 0x7B, 0x22]
            return seeds
        })

    /// Reads `frame` with `read`: a refusal carries one of `codes`; what reads encodes to a body
    /// that reads back to the same bytes.
    private static func check(
        _ frame: [UInt8], as what: String, among codes: Set<String>,
        _ read: ([UInt8]) throws(SandboxError) -> [UInt8]
    ) {
        let again: [UInt8]
        do throws(SandboxError) {
            again = try read(frame)
        } catch {
            expectRefusal(code: error.code.description, among: codes, message: error.message, for: "reading \(what)")
            return
        }
        do throws(SandboxError) {
            let third = try read(again)
            invariant(third == again, "\(what) does not encode to a stable body: \(again) became \(third)")
        } catch {
            invariant(false, "\(what) that read encodes to a body that does not read: \(error)")
        }
    }
}
