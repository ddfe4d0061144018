import Foundation
import Testing

@testable import SandboxBackup

/// AWS's published Signature Version 4 test suite ("aws-sig-v4-test-suite",
/// https://docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html), the cases as
/// awslabs/aws-c-auth carries them in `tests/aws-signing-test-suite/v4` (the `-unnormalized` halves
/// of the path cases, because S3 signs the path as it stands). Each is checked at every step:
/// canonical request, string to sign, signature.
struct SigV4VectorTests {
    struct Vector: CustomTestStringConvertible, Sendable {
        var name: String
        var method = "GET"
        var path = "/"
        var query: [(String, String)] = []
        var headers: [(String, String)] = []
        var payloadHash = SigV4Signer.emptyPayloadHash
        var canonical: String
        var stringToSignHash: String
        var signature: String
        var testDescription: String { name }
    }

    static let signer = SigV4Signer(
        credentials: S3Credentials(accessKey: "AKIDEXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "service")
    static let date = Date(timeIntervalSince1970: 1_440_938_160)  // 2015-08-30T12:36:00Z
    static let empty = SigV4Signer.emptyPayloadHash
    static let plainHeaders = "host:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" + empty

    static let vectors: [Vector] = [
        Vector(
            name: "get-vanilla", canonical: "GET\n/\n\n" + plainHeaders,
            stringToSignHash: "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(
            name: "get-unreserved", path: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            canonical: "GET\n/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\n\n" + plainHeaders,
            stringToSignHash: "6a968768eefaa713e2a6b16b589a8ea192661f098f37349f4e2c0082757446f9",
            signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
        Vector(
            name: "get-utf8", path: "/\u{1234}", canonical: "GET\n/%E1%88%B4\n\n" + plainHeaders,
            stringToSignHash: "2a0a97d02205e45ce2e994789806b19270cfbbb0921b278ccf58f5249ac42102",
            signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
        Vector(
            name: "get-space-unnormalized", path: "/example space/",
            canonical: "GET\n/example%20space/\n\n" + plainHeaders,
            stringToSignHash: "63ee75631ed7234ae61b5f736dfc7754cdccfedbff4b5128a915706ee9390d86",
            signature: "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
        Vector(
            name: "get-slashes-unnormalized", path: "//example//", canonical: "GET\n//example//\n\n" + plainHeaders,
            stringToSignHash: "528ec3105ee1f34ab014bb0a1a45da0ed2742a4fea3555149e5b4d5d201eb240",
            signature: "87cca117541a147f6df867677d98a7d80dff226d2bfca9e4ffa899665623c7e5"),
        Vector(
            name: "get-relative-unnormalized", path: "/example/..", canonical: "GET\n/example/..\n\n" + plainHeaders,
            stringToSignHash: "0511f456aa502b456d135fcb9d749374a55228f9dbeedda1eacf659e05b0615b",
            signature: "eca7ead57bb5aa5c8e28007acd4ff04e1ff9a0ff3b237ec1554a184887ff9282"),
        Vector(
            name: "get-vanilla-query-order-key-case", query: [("Param2", "value2"), ("Param1", "value1")],
            canonical: "GET\n/\nParam1=value1&Param2=value2\n" + plainHeaders,
            stringToSignHash: "816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0",
            signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        Vector(
            name: "get-vanilla-query-order-encoded",
            query: [("Param-3", "Value3"), ("Param", "Value2"), ("\u{1234}", "Value1")],
            canonical: "GET\n/\n%E1%88%B4=Value1&Param=Value2&Param-3=Value3\n" + plainHeaders,
            stringToSignHash: "868294f5c38bd141c4972a373a76654f1418a8e4fc18b2e7903ae45e8ae0ec71",
            signature: "371d3713e185cc334048618a97f809c9ffe339c62934c032af5a0e595648fcac"),
        Vector(
            name: "get-vanilla-query-unreserved",
            query: [
                (
                    "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                    "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                )
            ],
            canonical:
                "GET\n/\n-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\n"
                + plainHeaders,
            stringToSignHash: "c30d4703d9f799439be92736156d47ccfb2d879ddf56f5befa6d1d6aab979177",
            signature: "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"),
        Vector(
            name: "get-vanilla-utf8-query", query: [("\u{1234}", "bar")],
            canonical: "GET\n/\n%E1%88%B4=bar\n" + plainHeaders,
            stringToSignHash: "eb30c5bed55734080471a834cc727ae56beb50e5f39d1bff6d0d38cb192a7073",
            signature: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
        Vector(
            name: "get-header-key-duplicate",
            headers: [("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1")],
            canonical:
                "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value2,value2,value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n"
                + empty,
            stringToSignHash: "dc7f04a3abfde8d472b0ab1a418b741b7c67174dad1551b4117b15527fbe966c",
            signature: "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"),
        Vector(
            name: "get-header-value-order",
            headers: [
                ("My-Header1", "value4"), ("My-Header1", "value1"), ("My-Header1", "value3"), ("My-Header1", "value2"),
            ],
            canonical:
                "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value4,value1,value3,value2\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n"
                + empty,
            stringToSignHash: "31ce73cd3f3d9f66977ad3dd957dc47af14df92fcd8509f59b349e9137c58b86",
            signature: "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"),
        Vector(
            name: "get-header-value-trim", headers: [("My-Header1", " value1"), ("My-Header2", " \"a   b   c\"")],
            canonical:
                "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\n"
                + empty,
            stringToSignHash: "a726db9b0df21c14f559d0a978e563112acb1b9e05476f0a6a1c7d68f28605c7",
            signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
        Vector(
            name: "post-vanilla-query", method: "POST", query: [("Param1", "value1")],
            canonical: "POST\n/\nParam1=value1\n" + plainHeaders,
            stringToSignHash: "9d659678c1756bb3113e2ce898845a0a79dbbc57b740555917687f1b3340fbbd",
            signature: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
        Vector(
            name: "post-x-www-form-urlencoded", method: "POST",
            headers: [
                ("Content-Type", "application/x-www-form-urlencoded"), ("Content-Length", "13"),
                ("x-amz-content-sha256", "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e"),
            ],
            payloadHash: "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
            canonical:
                "POST\n/\n\ncontent-length:13\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\nx-amz-content-sha256:9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e\nx-amz-date:20150830T123600Z\n\ncontent-length;content-type;host;x-amz-content-sha256;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
            stringToSignHash: "b1edd1d03544c25390e32085d55b57acc9a3961bb59415ff86c45c3d89d16cfb",
            signature: "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b"),
    ]

    @Test(arguments: vectors) func signsAsTheSuiteStates(_ vector: Vector) {
        let request = SigV4Signer.Request(
            method: vector.method, path: vector.path, query: vector.query,
            headers: [("Host", "example.amazonaws.com")] + vector.headers, payloadHash: vector.payloadHash)
        let signed = Self.signer.sign(request, at: Self.date)
        #expect(signed.canonicalRequest == vector.canonical)
        #expect(
            signed.stringToSign
                == "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
                + vector.stringToSignHash)
        #expect(signed.signature == vector.signature)
        let signedHeaders = vector.canonical.split(separator: "\n", omittingEmptySubsequences: false).dropLast().last
        #expect(
            signed.authorization
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=\(signedHeaders ?? ""), Signature=\(vector.signature)"
        )
    }

    /// Object keys as a repository under an odd prefix names them: a space, `+` (never a space in a
    /// path), `~` (unreserved), `%` itself and non-ASCII letters, each encoded exactly once.
    @Test func encodesKeysOnceAndExactly() {
        #expect(SigV4Signer.encode("/b/my prefix/a+b~c%d/é", keepingSlash: true) == "/b/my%20prefix/a%2Bb~c%25d/%C3%A9")
        #expect(SigV4Signer.encode("a/b c+d", keepingSlash: false) == "a%2Fb%20c%2Bd")
        #expect(SigV4Signer.encode("\u{1F600}", keepingSlash: false) == "%F0%9F%98%80")
        let request = SigV4Signer.Request(
            method: "GET", path: "/", query: [("prefix", "a b/"), ("list-type", "2"), ("continuation-token", "x+y=")],
            headers: [("Host", "h")], payloadHash: SigV4Signer.emptyPayloadHash)
        let canonical = SigV4Signer.canonicalRequest(request, adding: []).request
        #expect(canonical.split(separator: "\n")[2] == "continuation-token=x%2By%3D&list-type=2&prefix=a%20b%2F")
    }

    @Test func addsTheSessionToken() {
        let signer = SigV4Signer(
            credentials: S3Credentials(
                accessKey: "AKIDEXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                sessionToken: "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"),
            region: "us-east-1", service: "service")
        let signed = signer.sign(
            SigV4Signer.Request(
                method: "GET", path: "/", query: [], headers: [("Host", "example.amazonaws.com")],
                payloadHash: SigV4Signer.emptyPayloadHash), at: Self.date)
        // get-vanilla-with-session-token
        #expect(signed.signature == "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8")
    }
}
