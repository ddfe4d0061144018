import Foundation
import Sandbox
import SandboxStore

extension FuzzTarget {
    /// The keychain file, `Device/Apps/<app-id>/keychain.plist`, read as the app's next launch
    /// reads it: the input is put in its place and `Keychain(home:app:).allItems()` opens it
    /// (property-list reading, format and version, the key check, the HMAC over the rows, then
    /// AES-GCM for each row). The scratch home's device key is fixed, so code-made seeds open; the
    /// device's record of the last generation written is removed before each input, so that the
    /// checks of the file itself are reached whatever generation the input carries.
    ///
    /// A refused file is left as it was. A file that opens can be written to and reads back with
    /// its items and the new one.
    static let keychainFile = FuzzTarget(
        name: "keychain-file",
        prepare: { _ = ScratchHome.shared },
        run: { bytes in
            let scratch = ScratchHome.shared
            let root = scratch.home.root
            let path = keychainPath
            forgetGeneration()
            scratch.place(bytes, at: path, in: root)
            let items: [KeychainItem]
            do throws(SandboxError) {
                let keychain = try Keychain(home: scratch.home, app: ScratchHome.app)
                items = try keychain.allItems()
                try keychain.set("written", key: "sandbox-fuzz")
            } catch {
                expectRefusal(
                    code: error.code.rawValue,
                    among: ["corrupt", "too-large", "newer-version", "authentication-failed", "type-mismatch"],
                    message: error.message, for: "Keychain.allItems()")
                invariant(
                    error.message.contains(path.description), "the refusal does not name '\(path)': \(error.message)")
                invariant(scratch.contents(of: path, in: root) == bytes, "a refused keychain file was changed")
                return
            }
            do {
                let keychain = try Keychain(home: scratch.home, app: ScratchHome.app)
                let reread = try keychain.allItems()
                invariant(try keychain.get("sandbox-fuzz") == "written", "a written keychain item does not read back")
                let others = reread.filter { !($0.service == ScratchHome.app.rawValue && $0.account == "sandbox-fuzz") }
                let before = items.filter { !($0.service == ScratchHome.app.rawValue && $0.account == "sandbox-fuzz") }
                invariant(Set(others) == Set(before), "writing one keychain item changed the others")
            } catch {
                invariant(false, "a keychain the store wrote cannot be read again: \(error)")
            }
        },
        seeds: {
            let scratch = ScratchHome.shared
            let path = keychainPath
            forgetGeneration()
            do {
                _ = try scratch.home.root.removeItem(at: path)
                let keychain = try Keychain(home: scratch.home, app: ScratchHome.app)
                var seeds: [String: [UInt8]] = [:]
                try keychain.set("hunter2", key: "password")
                seeds["one-item.keychain"] = scratch.contents(of: path, in: scratch.home.root)
                try keychain.label("API").comment("for the sync server").attributes(["scope": "read"]).set(
                    Data([0, 1, 2, 255]), key: "token")
                try Keychain(home: scratch.home, app: ScratchHome.app, service: "com.example.api").accessibility(
                    .whenUnlockedThisDeviceOnly
                ).set("s3cr3t", key: "ada")
                seeds["three-items.keychain"] = scratch.contents(of: path, in: scratch.home.root)
                return seeds
            } catch {
                fatalError("sandbox-fuzz: cannot make the keychain seeds: \(error)")
            }
        }
    )

    private static var keychainPath: ContainerPath { deviceFile("keychain.plist") }

    /// Removes the device's record of the keychain generation it last wrote.
    private static func forgetGeneration() {
        do throws(SandboxError) {
            _ = try ScratchHome.shared.home.root.removeItem(at: deviceFile("keychain.generation"))
        } catch  where error.code == .notFound {
            return  // the app's device folder is not made yet
        } catch {
            fatalError("sandbox-fuzz: cannot remove the keychain generation record: \(error)")
        }
    }

    private static func deviceFile(_ name: String) -> ContainerPath {
        do {
            return try SandboxHome.deviceDataDirectory(for: ScratchHome.app).appending(name)
        } catch {
            fatalError("sandbox-fuzz: \(error)")
        }
    }
}
