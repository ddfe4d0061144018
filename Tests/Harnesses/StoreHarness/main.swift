// A process the store's tests start several of at once.
//
//     sandbox-store-harness write-preferences HOME APP PREFIX COUNT
//     sandbox-store-harness write-keychain HOME APP PREFIX COUNT
//     sandbox-store-harness write-suite HOME APP PREFIX COUNT GROUP
//
// writes COUNT keys PREFIX-0 … PREFIX-(COUNT-1) (preferences: the integer index; keychain: the
// secret "secret-PREFIX-index" under the service "harness"), one locked, durable write each, for
// APP in the sandbox home HOME (write-suite: in the preference suite of APP's App Group GROUP),
// then prints "done".
import Foundation
import SandboxStore

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("sandbox-store-harness: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 6 || (arguments.count == 7 && arguments[1] == "write-suite"), let count = Int(arguments[5])
else {
    fail("usage: sandbox-store-harness write-preferences|write-keychain HOME APP PREFIX COUNT | write-suite … GROUP")
}
let prefix = arguments[4]
do {
    let home = try SandboxHome(location: arguments[2])
    let app = try AppIdentifier(arguments[3])
    switch arguments[1] {
    case "write-preferences":
        let preferences = try home.container(for: app).preferences()
        for index in 0..<count { try preferences.setValue(.integer(index), forKey: "\(prefix)-\(index)") }
    case "write-suite":
        let preferences = try home.container(for: app).preferences(suite: AppGroupIdentifier(arguments[6]))
        for index in 0..<count { try preferences.setValue(.integer(index), forKey: "\(prefix)-\(index)") }
    case "write-keychain":
        let keychain = try Keychain(home: home, app: app, service: "harness")
        for index in 0..<count { try keychain.set("secret-\(prefix)-\(index)", key: "\(prefix)-\(index)") }
    default:
        fail("unknown command '\(arguments[1])'")
    }
    print("done")
} catch {
    fail("\(error)")
}
