import Foundation
import Sandbox

extension TaskRecord {
    /// Decodes a checkpoint file and checks what a decoder cannot, so that a damaged or hostile
    /// checkpoint can never name a file outside the session's folder: the partial file and a
    /// hand-over's name are each one plain name, the URL is absolute http(s), lengths are not
    /// negative. The entry point for fuzzing checkpoints.
    ///
    /// - Parameter path: the checkpoint's path, for messages.
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` naming `path` and the rule that failed.
    package static func decoding(_ bytes: [UInt8], path: String) throws(SandboxError) -> TaskRecord {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let record: TaskRecord
        do {
            record = try decoder.decode(TaskRecord.self, from: Data(bytes))
        } catch {
            throw SandboxError(
                .corrupt, "The checkpoint '\(path)' is damaged; remove it to forget that download.", path: path,
                underlying: .wrapping(error))
        }
        func damaged(_ reason: String, cause: SandboxError? = nil) -> SandboxError {
            SandboxError(
                .corrupt, "The checkpoint '\(path)' is damaged: \(reason); remove it to forget that download.",
                path: path, underlying: .wrapping(cause))
        }
        do throws(SandboxError) {
            _ = try ContainerPath.validateName(record.partialName)
            if case .finishing(let name) = record.phase { _ = try ContainerPath.validateName(name) }
        } catch {
            throw damaged("it names a file that is not one plain name in the session's folder", cause: error)
        }
        guard DownloadRequest.isSupported(URL(string: record.originalURL)) else {
            throw damaged("'\(record.originalURL)' is not an http or https URL")
        }
        guard record.id >= 0, record.bytesOnDisk >= 0, (record.expectedLength ?? 0) >= 0 else {
            throw damaged("it holds a negative number")
        }
        guard record.id < Int.max else { throw damaged("its identifier has no successor") }
        return record
    }

    /// The checkpoint file's bytes: ``jsonBytes()``, or `JSONEncoder`'s for a date it does not cover.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` if a value cannot be encoded.
    func encoded() throws(SandboxError) -> [UInt8] {
        if let bytes = jsonBytes() { return bytes }
        return try encodedByJSONEncoder()
    }

    /// The bytes `JSONEncoder` makes of the record (sorted keys, ISO 8601 dates).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` if a value cannot be encoded.
    func encodedByJSONEncoder() throws(SandboxError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do {
            return Array(try encoder.encode(self))
        } catch {
            throw SandboxError(
                .invalidArgument, "Could not encode the checkpoint of task \(id).", underlying: .wrapping(error))
        }
    }

    /// The request the record was made for.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` when its URL is not one (a checkpoint is checked
    ///   when read, so only a record changed since could fail).
    func request() throws(SandboxError) -> DownloadRequest {
        guard let url = URL(string: originalURL) else {
            throw SandboxError(
                .corrupt, "The checkpoint of task \(id) holds '\(originalURL)', which is not a URL.", url: originalURL)
        }
        return DownloadRequest(url: url, headers: headers, expectedDigest: expectedDigest, destination: destination)
    }
}
