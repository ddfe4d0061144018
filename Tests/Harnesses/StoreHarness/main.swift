// A process the store's tests start several of at once.
//
//     sandbox-store-harness write-preferences HOME APP PREFIX COUNT
//
// writes COUNT keys PREFIX-0 … PREFIX-(COUNT-1), one `set` (one locked, durable write) each, to the
// preferences of APP in the sandbox home HOME, then prints "done".
import Foundation
import SandboxStore

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("sandbox-store-harness: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 6, arguments[1] == "write-preferences", let count = Int(arguments[5]) else {
    fail("usage: sandbox-store-harness write-preferences HOME APP PREFIX COUNT")
}
do {
    let home = try SandboxHome(location: arguments[2])
    let container = try home.container(for: AppIdentifier(arguments[3]))
    let preferences = try container.preferences()
    for index in 0..<count {
        try preferences.setValue(.integer(index), forKey: "\(arguments[4])-\(index)")
    }
    print("done")
} catch {
    fail("\(error)")
}
