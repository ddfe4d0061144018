import Logging
import Sandbox
import SandboxStore

/// Makes the server's ``ShareResponder`` for a Documents folder: what every responder of one
/// server shares (the locks, so tokens survive a restore; the page's sessions, so a browser stays
/// logged in; the pairing gate; the ``WriteGate``) and the one thing a restore changes, the folder.
struct ResponderFactory: Sendable {
    let configuration: ShareConfiguration
    /// The `Host` values that name the server (``ShareConfiguration/allowedAuthorities(port:localAddresses:hostName:)``).
    let allowedAuthorities: Set<String>
    let locks: LockManager
    let gate: PairingGate
    let sessions: WebSessions
    /// The run's pairing link, if it has one.
    let pairing: PairingLink?
    /// The page's sessions as devices to list and revoke, if kept (a server made from a container).
    let devices: DeviceSessions?
    let writes: WriteGate
    let dataProtection: DataProtection?
    let logger: Logger

    /// A responder serving `documents`, with dead properties of its own (they live in the folder).
    func responder(serving documents: ConfinedRoot) -> ShareResponder {
        let methods = DAVMethods(
            documents: documents, locks: locks, properties: DeadPropertyStore(root: documents, logger: logger),
            readOnly: configuration.readOnly, maximumUploadSize: configuration.maximumUploadSize,
            allowedAuthorities: allowedAuthorities, logger: logger, dataProtection: dataProtection, writes: writes,
            scheme: configuration.scheme)
        return ShareResponder(
            methods: methods, gate: gate, sessions: sessions, pairing: pairing, devices: devices,
            logger: logger)
    }
}
