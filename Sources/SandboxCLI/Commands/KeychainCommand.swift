import ArgumentParser
import Foundation
import SandboxCLISupport
import SandboxStore

/// `sandbox keychain <app-id> set|get|delete SERVICE ACCOUNT`.
struct KeychainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keychain",
        abstract:
            "Set, get and delete an app's keychain items (generic passwords), kept encrypted outside its container.",
        discussion: """
            set reads the secret from standard input (one trailing newline is dropped); get prints it. \
            Items live in $SANDBOX_HOME/Device/Apps/<app-id>/keychain.plist, sealed with this device's key; \
            with --group, the App Group's items (its keychain access group), shared by its members, in \
            $SANDBOX_HOME/Device/AppGroups/<group-id>/keychain.plist.
            """
    )

    enum Verb: String, ExpressibleByArgument, CaseIterable {
        case set, get, delete
    }

    @OptionGroup var app: AppArgument
    @Argument(help: "set, get or delete.")
    var verb: Verb
    @Argument(help: "The item's service (kSecAttrService).")
    var service: String
    @Argument(help: "The item's account (kSecAttrAccount).")
    var account: String
    @Option(
        help: ArgumentHelp(
            "An App Group's keychain access group instead of the app's own items; the app's signed bundle must list the group.",
            valueName: "group-id"))
    var group: String?
    @OptionGroup var output: OutputOptions

    func run() throws {
        let identifier = try app.identifier()
        let keychain = try Keychain(
            home: SandboxHome(), app: identifier, service: service, accessGroup: group.map(AppGroupIdentifier.init))
        switch verb {
        case .set:
            var secret = FileHandle.standardInput.readDataToEndOfFile()
            if secret.last == UInt8(ascii: "\n") { secret.removeLast() }
            try keychain.set(secret, key: account)
        case .get:
            guard let item = try keychain.item(account) else { throw missing() }
            if output.json { return try Output.json(ItemSummary(item)) }
            try StandardStreams.output(item.secret + [UInt8(ascii: "\n")])
        case .delete:
            guard try keychain.remove(account) else { throw missing() }
        }
    }

    private func missing() -> SandboxError {
        SandboxError(
            .notFound,
            "No keychain item for service '\(service)' and account '\(account)' in \(app.app). "
                + "`sandbox keychain \(app.app) set '\(service)' '\(account)'` stores one (the secret on standard input)."
        )
    }

    /// An item as `get --json` prints it; the secret as UTF-8 text when it is, else base64.
    struct ItemSummary: Encodable {
        var service: String
        var account: String
        var label: String?
        var accessibility: String
        var created: Date
        var modified: Date
        var secret: String?
        var secretBase64: String?

        init(_ item: KeychainItem) {
            service = item.service
            account = item.account
            label = item.label
            accessibility = item.accessibility.rawValue
            created = item.creationDate
            modified = item.modificationDate
            if let text = String(data: item.secret, encoding: .utf8) {
                secret = text
            } else {
                secretBase64 = item.secret.base64EncodedString()
            }
        }
    }
}
