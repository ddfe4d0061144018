import Foundation
import Sandbox
import SandboxCore
import SandboxStore

/// The property lists of an iOS backup folder, as Finder and iTunes write them: `Manifest.plist`
/// (the device, the apps, the keybag), `Info.plist` (the device, for people and tools) and
/// `Status.plist` (a full backup, finished).
struct IOSBackupFolderInfo {
    /// The device's identifier: a UDID's shape (40 lowercase hex digits), stable for the home.
    var deviceIdentifier: String
    var deviceName: String
    var date: Date
    /// Bundle identifier → version.
    var apps: [(identifier: String, version: String)]

    static let productType = "iPhone"
    static let productVersion = "17.0"
    static let buildVersion = "21A329"

    /// The plists by file name.
    func files() throws(SandboxError) -> [(name: String, bytes: [UInt8])] {
        var applications: [String: PreferenceValue] = [:]
        for app in apps {
            applications[app.identifier] = .dictionary([
                "CFBundleIdentifier": .string(app.identifier),
                "CFBundleVersion": .string(app.version),
                "ContainerContentClass": .string("Data/Application"),
                "Path": .string("/var/containers/Bundle/Application/\(app.identifier).app"),
            ])
        }
        let lockdown: [String: PreferenceValue] = [
            "ProductVersion": .string(Self.productVersion), "ProductType": .string(Self.productType),
            "BuildVersion": .string(Self.buildVersion), "UniqueDeviceID": .string(deviceIdentifier),
            "SerialNumber": .string(serialNumber), "DeviceName": .string(deviceName),
        ]
        let manifest: PreferenceValue = .dictionary([
            "IsEncrypted": .bool(false), "Version": .string("10.0"), "Date": .date(date),
            "SystemDomainsVersion": .string("24.0"), "WasPasscodeSet": .bool(false),
            "Lockdown": .dictionary(lockdown), "Applications": .dictionary(applications),
            "BackupKeyBag": .data(Data(keyBag)),
        ])
        let info: PreferenceValue = .dictionary([
            "Device Name": .string(deviceName), "Display Name": .string(deviceName),
            "GUID": .string(String(deviceIdentifier.prefix(32)).uppercased()),
            "Product Type": .string(Self.productType), "Product Version": .string(Self.productVersion),
            "Build Version": .string(Self.buildVersion), "Serial Number": .string(serialNumber),
            "Target Identifier": .string(deviceIdentifier), "Target Type": .string("Device"),
            "Unique Identifier": .string(deviceIdentifier.uppercased()), "Last Backup Date": .date(date),
            "Installed Applications": .array(apps.map { .string($0.identifier) }),
            "iTunes Version": .string("12.13"),
        ])
        let status: PreferenceValue = .dictionary([
            "IsFullBackup": .bool(true), "Version": .string("3.3"), "BackupState": .string("new"),
            "Date": .date(date), "UUID": .string(UUID().uuidString), "SnapshotState": .string("finished"),
        ])
        return [
            ("Manifest.plist", try PropertyList.encode(manifest, format: .binary)),
            ("Info.plist", try PropertyList.encode(info, format: .xml)),
            ("Status.plist", try PropertyList.encode(status, format: .binary)),
        ]
    }

    /// A serial number's shape, from the identifier.
    private var serialNumber: String { String(deviceIdentifier.suffix(12)).uppercased() }

    /// An unencrypted backup's keybag: the TLV blocks iOS writes before its class keys (`VERS`,
    /// `TYPE` 1 for a backup keybag, `UUID`, `WRAP` 0), which readers such as iOSbackup parse
    /// whether the backup is encrypted or not; no class key, as nothing is wrapped.
    var keyBag: [UInt8] {
        func block(_ tag: String, _ value: [UInt8]) -> [UInt8] {
            let count = UInt32(value.count)
            return Array(tag.utf8) + withUnsafeBytes(of: count.bigEndian, Array.init) + value
        }
        func number(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        let uuid = Hex.bytes(Array(deviceIdentifier.prefix(32).utf8)) ?? []
        return block("VERS", number(3)) + block("TYPE", number(1)) + block("UUID", uuid) + block("WRAP", number(0))
    }
}
