import Foundation
import Glibc
import Sandbox
import Testing

@Suite(
    "Landlock: the ABI probe, rights per ABI, rulesets",
    .enabled(if: LandlockABI.current().version >= LandlockABI.required, "needs Landlock ABI 6: Linux 6.12 or later"))
struct LandlockTests {
    @Test("the probe reads the kernel's ABI; SANDBOX_LANDLOCK_ABI only lowers it")
    func probe() throws {
        let abi = LandlockABI.current()
        #expect(abi.version >= 1, "\(abi)")
        #expect(abi.description == "Landlock ABI \(abi.version) on Linux \(abi.kernelRelease)")
        #expect(LandlockABI.current(environment: ["SANDBOX_LANDLOCK_ABI": "3"]).version == min(3, abi.version))
        #expect(LandlockABI.current(environment: ["SANDBOX_LANDLOCK_ABI": "99"]).version == abi.version)
        let none = LandlockABI.current(environment: ["SANDBOX_LANDLOCK_ABI": "0"])
        #expect(none.version == 0)
        #expect(none.description.hasPrefix("no Landlock on Linux "))
    }

    @Test("each ABI handles the rights it introduced, and says what it leaves unenforced")
    func rightsPerABI() {
        #expect(!FileSystemAccess.handled(byABI: 1).contains(.refer))
        #expect(FileSystemAccess.handled(byABI: 2).contains(.refer))
        #expect(!FileSystemAccess.handled(byABI: 2).contains(.truncate))
        #expect(FileSystemAccess.handled(byABI: 5).contains(.ioctlDevice))
        #expect(NetworkAccess.handled(byABI: 3).isEmpty)
        #expect(NetworkAccess.handled(byABI: 4) == [.bindTCP, .connectTCP])
        #expect(LandlockScope.handled(byABI: 5).isEmpty)
        #expect(LandlockScope.handled(byABI: 6) == [.abstractUnixSocket, .signal])
        let at = { (version: Int) in
            LandlockABI.current(environment: ["SANDBOX_LANDLOCK_ABI": String(version)])
        }
        #expect(at(LandlockABI.required).unenforced(blockingNetwork: true).isEmpty)
        #expect(at(3).unenforced(blockingNetwork: true).contains { $0.hasPrefix("--no-network is not enforced") })
        #expect(!at(3).unenforced(blockingNetwork: false).contains { $0.hasPrefix("--no-network") })
        #expect(at(5).unenforced(blockingNetwork: true) == ["signals to processes outside the sandbox are not blocked"])
        #expect(!FileSystemAccess.container.contains(.makeBlockDevice))
        #expect(!FileSystemAccess.container.contains(.execute))
    }

    @Test("a rule on a file keeps only file rights; one on a missing path is skipped or an error")
    func ruleset() throws {
        let ruleset = try LandlockRuleset(abi: .current(), handling: .handled(byABI: LandlockABI.current().version))
        #expect(try ruleset.allow(.readAndExecute, atHostPath: "/usr") == .readAndExecute)
        #expect(try ruleset.allow(.readOnly, atHostPath: "/dev/null") == .readFile)
        #expect(try ruleset.allow(.readOnly, atHostPath: "/no/such/path", ifPresent: true) == nil)
        let error = #expect(throws: SandboxError.self) {
            try ruleset.allow(.readOnly, atHostPath: "/no/such/path")
        }
        #expect(error?.code == .notFound)
        let none = #expect(throws: SandboxError.self) {
            try LandlockRuleset(abi: .current(environment: ["SANDBOX_LANDLOCK_ABI": "0"]), handling: .readOnly)
        }
        #expect(none?.code == .unsupported)
    }
}
