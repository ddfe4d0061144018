import Foundation
import Sandbox
import SandboxTransfer

extension FuzzTarget {
    /// `ResumeData(decoding:)`: resume data an app kept (and may have been handed by anyone).
    ///
    /// Resume data that decodes passes its own validation, names one plain partial file, a
    /// http(s) URL, a strong validator and a hexadecimal digest, would send only well-formed
    /// headers (no CR or LF to start another) and no credentials, and round-trips through
    /// ``ResumeData/encoded()``.
    static let resumeData = FuzzTarget(
        name: "resume-data",
        run: { bytes in
            let data: ResumeData
            do throws(SandboxError) {
                data = try ResumeData(decoding: Data(bytes))
            } catch {
                expectRefusal(
                    code: error.code.description, among: ["invalid-resume-data"], message: error.message,
                    for: "ResumeData(decoding:)")
                return
            }
            do throws(SandboxError) {
                try data.validate()
                let again = try ResumeData(decoding: try data.encoded())
                invariant(again == data, "resume data does not round-trip: \(data) became \(again)")
            } catch {
                invariant(false, "resume data that decoded fails its own checks or round trip: \(error)")
            }
            do throws(SandboxError) {
                _ = try FileName(data.partialFile.name)
            } catch {
                invariant(
                    false,
                    "resume data names the partial file \(data.partialFile.name.debugDescription), which is no plain name: \(error)"
                )
            }
            invariant(data.expectedLength.map { $0 >= 0 } ?? true, "resume data has a negative expected length")
            if let validator = data.validator {
                if case .entityTag(let tag) = validator {
                    invariant(
                        Validator.isStrongEntityTag(tag), "resume data holds the weak or malformed entity tag \(tag)")
                }
                invariant(
                    HeaderText.isFieldValue(validator.ifRangeValue),
                    "resume data would send the If-Range value \(validator.ifRangeValue.debugDescription)")
            }
            for (name, value) in data.headers {
                invariant(
                    HeaderText.isToken(name) && HeaderText.isFieldValue(value),
                    "resume data would send the header \(name.debugDescription): \(value.debugDescription)")
                // "Request headers to send again (never credentials)".
                invariant(
                    !HeaderText.credentials.contains(name.lowercased()),
                    "resume data carries the credentials header \(name)")
            }
            if let digest = data.expectedDigest {
                invariant(
                    digest.hex.count == 2 * digest.algorithm.byteCount && digest.hex.allSatisfy(\.isHexDigit),
                    "resume data holds the \(digest.algorithm) digest '\(digest.hex)'")
            }
            let scheme = URL(string: data.originalURL)?.scheme?.lowercased()
            invariant(scheme == "http" || scheme == "https", "resume data resumes from '\(data.originalURL)'")
        },
        seeds: {
            let created = Date(timeIntervalSince1970: 1_750_000_000)
            do {
                let full = ResumeData(
                    sessionIdentifier: "default", taskIdentifier: 7,
                    originalURL: "https://example.com/files/report.pdf",
                    finalURL: "https://cdn.example.com/r/report.pdf", validator: .entityTag("\"5f1c-3a\""),
                    expectedLength: 1_048_576,
                    partialFile: PartialFileIdentity(
                        name: "7-9a3f01c2.partial", inode: 131_075, birthTime: 1_750_000_000.25),
                    expectedDigest: try ExpectedDigest(.sha256, hex: String(repeating: "ab", count: 32)),
                    headers: ["Accept": "application/pdf", "X-Trace": "a=b; c"], createdAt: created)
                let dated = ResumeData(
                    sessionIdentifier: "s", taskIdentifier: 1, originalURL: "http://127.0.0.1:8080/a%20b?x=1",
                    validator: .lastModified("Tue, 15 Nov 1994 08:12:31 GMT"), expectedLength: nil,
                    partialFile: PartialFileIdentity(name: "1-0.partial", inode: nil), createdAt: created)
                let restart = ResumeData(
                    sessionIdentifier: "s", taskIdentifier: 2, originalURL: "https://example.com/", validator: nil,
                    expectedLength: 0,
                    partialFile: PartialFileIdentity(name: "2-ffffffff.partial", inode: 1),
                    expectedDigest: try ExpectedDigest(.md5, hex: String(repeating: "0", count: 32)), createdAt: created
                )
                return [
                    "full.json": Array(try full.encoded()), "last-modified.json": Array(try dated.encoded()),
                    "restart.json": Array(try restart.encoded()),
                ]
            } catch {
                fatalError("sandbox-fuzz: cannot make the resume data seeds: \(error)")
            }
        })
}
