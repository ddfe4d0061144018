import Sandbox
import Testing

@testable import SandboxShare

@Suite struct DepthTests {
    @Test(arguments: [
        ("0", Depth.zero), ("1", .one), ("infinity", .infinity), ("Infinity", .infinity), (" 1\t", .one),
    ])
    func parsesTheThreeValues(value: String, depth: Depth) throws {
        #expect(try Depth.parse(value, default: .zero) == depth)
        #expect(depth.description == value.trimmingSpaces.lowercased())
    }

    @Test func missingIsTheDefault() throws {
        #expect(try Depth.parse(nil, default: .infinity) == .infinity)
        #expect(try Depth.parse(nil, default: .zero) == .zero)
    }

    @Test(arguments: [
        "", "2", "-1", "00", "01", "inf", "infinite", "1,0", "0 1", "１", "\u{0}", String(repeating: "9", count: 5000),
    ])
    func refusesEverythingElse(value: String) {
        #expect {
            try Depth.parse(value, default: .zero)
        } throws: { error in
            (error as? SandboxError)?.code == .malformedRequest && ((error as? SandboxError)?.message.count ?? 0) < 200
        }
    }
}
