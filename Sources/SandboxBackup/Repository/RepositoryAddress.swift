import Foundation
import SandboxCore

/// Where a repository is — `REPO` as the commands take it: a directory on this machine, or
/// `s3://bucket/prefix` with the endpoint, region and keys from the environment (see
/// ``S3Location`` for the variables).
public enum RepositoryAddress: Sendable, Hashable, CustomStringConvertible {
    /// A directory on this machine, by its path.
    case directory(String)
    /// A prefix in an S3 bucket, with the endpoint and keys to reach it.
    case s3(S3Location)

    /// Parses `address`: `s3://bucket/prefix` (the endpoint, region and keys read from
    /// `environment`), or else a directory's path.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a malformed `s3://` address,
    ///   missing keys, or an empty path.
    public init(
        _ address: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SandboxError) {
        guard S3Location.isS3(address) else {
            guard !address.isEmpty else {
                throw SandboxError(.invalidArgument, "An empty path names no repository: give its directory.")
            }
            self = .directory(address)
            return
        }
        self = .s3(try S3Location.parse(address, environment: environment))
    }

    /// The directory's path, or `s3://bucket/prefix` (never the keys).
    public var description: String {
        switch self {
        case .directory(let path): path
        case .s3(let location): location.description
        }
    }

    /// The storage the address names.
    ///
    /// The checks run on a thread of their own (file-system calls and requests block).
    ///
    /// - Parameters:
    ///   - creating: make what is missing — the directory and its layout, or the bucket — as a
    ///     backup does; otherwise the repository must exist.
    ///   - concurrency: the storage's ``RepositoryStorage/preferredConcurrency`` (at least 1);
    ///     `nil`: its default (a directory: 2, S3: 8).
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` for a missing directory or bucket (when
    ///   not `creating`); ``/SandboxCore/SandboxError/Code/permissionDenied`` for keys the endpoint
    ///   refuses; ``SandboxCore/SandboxError/Code/repositoryUnreachable``; the file system's errors.
    public func storage(creating: Bool, concurrency: Int? = nil) async throws(SandboxError) -> any RepositoryStorage {
        try await OwnedThread.run(name: "sandbox-repository") { () throws(SandboxError) in
            try storage(creating: creating, concurrency: concurrency)
        }
    }

    /// ``storage(creating:concurrency:)`` on the calling thread, which it blocks.
    package func storage(creating: Bool, concurrency: Int? = nil) throws(SandboxError) -> any RepositoryStorage {
        switch self {
        case .directory(let path):
            var storage =
                creating
                ? try LocalRepositoryStorage.creatingLayout(atHostPath: path)
                : try LocalRepositoryStorage(openingDirectoryAt: path)
            if let concurrency { storage.preferredConcurrency = concurrency }
            return storage
        case .s3(let location):
            let storage = S3Storage(location, concurrency: concurrency ?? S3Storage.defaultConcurrency)
            if creating { try storage.createBucketIfMissing() } else { try storage.checkBucket() }
            return storage
        }
    }
}
