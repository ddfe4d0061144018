import SandboxBackup
import SandboxCore
import Testing

/// `REPO` parsed once into a typed address: a directory or an S3 location, whose description never
/// shows the keys.
@Suite struct RepositoryAddressTests {
    static let environment = [
        "S3_ENDPOINT": "http://127.0.0.1:7480", "S3_ACCESS_KEY": "AKID", "S3_SECRET_KEY": "very-secret",
    ]

    @Test func anAddressIsADirectoryOrAnS3Location() throws {
        #expect(try RepositoryAddress("/var/backups/sandbox", environment: [:]) == .directory("/var/backups/sandbox"))
        let s3 = try RepositoryAddress("s3://bucket/my/prefix/", environment: Self.environment)
        guard case .s3(let location) = s3 else {
            Issue.record("\(s3) is not an S3 address")
            return
        }
        #expect(location.bucket == "bucket")
        #expect(location.prefix == "my/prefix")
        #expect(s3.description == "s3://bucket/my/prefix")
        #expect(!"\(s3)".contains("very-secret"))
    }

    @Test func aMalformedAddressIsRefusedBeforeAnythingIsOpened() {
        for address in ["", "s3://", "s3://Not_A_Bucket/x"] {
            #expect(throws: SandboxError.self, "\(address)") {
                try RepositoryAddress(address, environment: Self.environment)
            }
        }
        let missingKeys = failure { () throws(SandboxError) in _ = try RepositoryAddress("s3://b/p", environment: [:]) }
        #expect(missingKeys?.code == .invalidArgument)
    }
}
