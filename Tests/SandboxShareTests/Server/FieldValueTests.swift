import HTTPTypes
import Testing

@testable import SandboxShare

/// `fieldValue(_:)` gives what HTTP Types' subscript gives: nothing, the one value, or the values
/// joined.
@Suite struct FieldValueTests {
    @Test func sameAsTheSubscript() {
        var fields = HTTPFields()
        fields[.userAgent] = "litmus"
        fields.append(HTTPField(name: .accept, value: "text/html"))
        fields.append(HTTPField(name: .accept, value: "*/*"))
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        fields[.authorization] = "Basic c2FuZGJveDpjb2Rl"
        for name in [HTTPField.Name.userAgent, .accept, .cookie, .authorization, .range, .ifNoneMatch] {
            #expect(fields.fieldValue(name) == fields[name], "\(name)")
        }
        #expect(fields.fieldValue(.accept) == "text/html, */*")
        #expect(fields.fieldValue(.cookie) == "a=1; b=2")
        #expect(fields.fieldValue(.range) == nil)
    }
}
