import Foundation
import SandboxCore

/// `REPO` as the commands take it: a directory on this machine, or `s3://bucket/prefix` (see
/// ``S3Location`` for the environment variables it reads).
public enum RepositoryAddress {
    /// The storage `address` names.
    ///
    /// - Parameters:
    ///   - address: a directory's path, or `s3://bucket/prefix`.
    ///   - creating: make what is missing — the directory and its layout, or the bucket — as a
    ///     backup does; otherwise the repository must exist.
    ///   - environment: where the S3 endpoint, region and keys are read (see ``S3Location``).
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a malformed `s3://` address
    ///   or missing keys; ``/SandboxCore/SandboxError/Code/notFound`` for a missing directory or
    ///   bucket (when not `creating`); ``/SandboxCore/SandboxError/Code/permissionDenied`` for keys
    ///   the endpoint refuses; ``SandboxCore/SandboxError/Code/repositoryUnreachable``.
    ///
    /// The checks run on a thread of its own (file-system calls and requests block).
    public static func storage(
        _ address: String, creating: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws(SandboxError) -> any RepositoryStorage {
        try await OwnedThread.run(name: "sandbox-repository") { () throws(SandboxError) in
            try storage(address, creating: creating, environment: environment)
        }
    }

    /// ``storage(_:creating:environment:)`` on the calling thread, which it blocks.
    package static func storage(
        _ address: String, creating: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SandboxError) -> any RepositoryStorage {
        guard S3Location.isS3(address) else {
            return creating
                ? try LocalRepositoryStorage.creatingLayout(atHostPath: address)
                : try LocalRepositoryStorage(openingDirectoryAt: address)
        }
        let storage = S3Storage(try S3Location.parse(address, environment: environment))
        if creating { try storage.createBucketIfMissing() } else { try storage.checkBucket() }
        return storage
    }
}
