import Foundation
import Sandbox
import SandboxStore

extension FuzzTarget {
    /// The preferences file, `Library/Preferences/<app-id>.plist`, read as an app's next launch
    /// reads it: the input is put in its place and `Preferences(container:)` opens it (the store's
    /// own binary reader, or Foundation's for XML).
    ///
    /// A damaged file is refused with `corrupt` and left as it was. A file that opens can be
    /// written to, and reads back with the old values and the new one.
    static let preferencesFile = FuzzTarget(
        name: "preferences-file",
        prepare: { _ = ScratchHome.shared },
        run: { bytes in
            let scratch = ScratchHome.shared
            let root = scratch.container.root
            let path = preferencesPath
            scratch.place(bytes, at: path, in: root)
            let stored: [String: PreferenceValue]
            do throws(SandboxError) {
                let preferences = try Preferences(container: scratch.container)
                invariant(preferences.path == path, "the preferences file is at '\(preferences.path)', not '\(path)'")
                stored = preferences.storedValues
                try preferences.setValue(.string("written"), forKey: "sandbox-fuzz")
            } catch {
                expectRefusal(
                    code: error.code.rawValue, among: ["corrupt", "too-large", "type-mismatch"], message: error.message,
                    for: "Preferences(container:)")
                invariant(
                    error.message.contains(path.description), "the refusal does not name '\(path)': \(error.message)")
                invariant(scratch.contents(of: path, in: root) == bytes, "a refused preferences file was changed")
                return
            }
            do {
                let reread = try Preferences(container: scratch.container).storedValues
                var expected = stored
                expected["sandbox-fuzz"] = .string("written")
                invariant(
                    PreferenceValue.dictionary(reread).isSame(as: .dictionary(expected)),
                    "written preferences read back as \(PreferenceValue.dictionary(reread).typed), not \(PreferenceValue.dictionary(expected).typed)"
                )
            } catch {
                invariant(false, "preferences the store wrote cannot be read again: \(error)")
            }
        },
        seeds: {
            do {
                return [
                    "store.plist": try PropertyList.encode(preferenceSeed, format: .binary),
                    "store-xml.plist": try PropertyList.encode(preferenceSeed, format: .xml),
                ]
            } catch {
                fatalError("sandbox-fuzz: cannot encode the preferences seed: \(error)")
            }
        }
    )

    private static var preferencesPath: ContainerPath {
        do {
            return try ContainerPath("Library/Preferences/\(ScratchHome.app.rawValue).plist")
        } catch {
            fatalError("sandbox-fuzz: \(error)")
        }
    }

    /// What `defaults write` leaves in a preferences file: every value type, shallow.
    private static let preferenceSeed: [String: PreferenceValue] = [
        "username": .string("ada"), "launchCount": .integer(12), "volume": .double(0.75), "whole": .double(2),
        "onboarded": .bool(true), "lastOpened": .date(Date(timeIntervalSinceReferenceDate: 760_000_000.25)),
        "token": .data(Data("tok".utf8)), "recent": .array([.string("a.txt"), .string("b.txt")]),
        "window": .dictionary(["x": .integer(10), "y": .integer(-20), "title": .string("naïve ☃")]),
    ]
}
