import Crypto
import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxStore

/// `AppDataInfo.plist`, the description at the top of an Xcode container package (`.xcappdata`):
/// which app's data it holds and which device it was downloaded from, as Xcode's "Download
/// Container…" writes it (an XML property list). Every key is optional when read: Xcode itself
/// reads only the app's identifier.
public struct AppDataInfo: Sendable, Hashable, Codable {
    /// The app whose data container the package holds (`CFBundleIdentifier`).
    public var bundleIdentifier: String?
    /// The device's identifier (`DeviceIdentifier`; a UDID on iOS, the sandbox home's here).
    public var deviceIdentifier: String?
    /// The device's name (`DeviceName`; the host's name here).
    public var deviceName: String?
    /// The system's version (`DeviceProductVersion`; the kernel's release here).
    public var deviceProductVersion: String?
    /// The processor's architecture (`DeviceArchitecture`).
    public var deviceArchitecture: String?
    /// When the container was downloaded (`DownloadDate`).
    public var downloadDate: Date?

    enum CodingKeys: String, CodingKey {
        case bundleIdentifier = "CFBundleIdentifier"
        case deviceIdentifier = "DeviceIdentifier"
        case deviceName = "DeviceName"
        case deviceProductVersion = "DeviceProductVersion"
        case deviceArchitecture = "DeviceArchitecture"
        case downloadDate = "DownloadDate"
    }

    /// The name of the file at the package's top.
    static let fileName = "AppDataInfo.plist"
    /// The most a package's `AppDataInfo.plist` may hold: a few hundred bytes are usual.
    static let maximumSize = 64 << 10

    /// The description of a container of `app` downloaded now from the device `home` is.
    static func describing(app: AppIdentifier, home: SandboxHome) -> AppDataInfo {
        var system = utsname()
        _ = uname(&system)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { bytes in String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self) }
        }
        // A stable identifier of the home, not its path (a package leaves the machine).
        let digest = Hex.string(SHA256.hash(data: Array(home.location.utf8)).prefix(20), uppercase: true)
        return AppDataInfo(
            bundleIdentifier: app.rawValue, deviceIdentifier: digest, deviceName: text(system.nodename),
            deviceProductVersion: text(system.release), deviceArchitecture: text(system.machine),
            downloadDate: Date())
    }

    /// Reads the package's `AppDataInfo.plist` through `package` (a root that refuses symlinks).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidPackage`` for a missing file, a link, one
    ///   larger than 64 KiB, or one that is not a property list dictionary of these keys' types.
    static func read(from package: ConfinedRoot) throws(SandboxError) -> AppDataInfo {
        let path = ContainerPath(constant: "AppDataInfo.plist")
        let shown = package.displayPath(of: path)
        do {
            let bytes = try package.readContents(of: path, maximumSize: maximumSize)
            return try PropertyList.decode(AppDataInfo.self, from: bytes, path: shown)
        } catch {
            let problem =
                switch error.code {
                case .notFound: "is missing"
                case .symlinkLoop, .notARegularFile, .isADirectory: "is not a file"
                case .fileTooLarge: "is larger than \(maximumSize) bytes"
                default: "cannot be read: \(error.message)"
                }
            throw SandboxError(
                .invalidPackage,
                "'\(shown)' \(problem); an Xcode container package holds an XML property list there naming the app (CFBundleIdentifier). The package was not imported and the app's container is unchanged.",
                path: shown)
        }
    }
}
