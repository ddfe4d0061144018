import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Sandbox

extension WebPage {
    /// One logged-in browser as the page's devices section shows it.
    struct ListedDevice: Encodable {
        let id: String
        /// The device and browser (``DeviceSessions/label(userAgent:)``).
        let label: String
        /// When it logged in, ISO 8601.
        let since: String
        /// When it last made a request, ISO 8601; `nil` when the share holds no live session for it.
        let lastSeen: String?
        /// Whether it is the browser asking.
        let current: Bool
    }

    /// `GET /.sandbox/s/<scope>/api/devices`: the browsers logged in to the share (as
    /// `sandbox share … --devices` lists them), with when each last made a request.
    ///
    /// Only the owner's browser (``WebSessions/Session/owner``: it logged in with the pairing
    /// code) may list and revoke devices; a device paired through a pairing link may not, so a
    /// phone that was lent or lost cannot end the owner's session nor see the others.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/forbidden`` for a paired device,
    ///   ``/SandboxCore/SandboxError/Code/notFound`` when the share keeps no device list, and the
    ///   errors of reading it.
    func deviceList(_ session: WebSessions.Session, token: String) throws(SandboxError) -> Response {
        struct Devices: Encodable { let devices: [ListedDevice] }
        let devices = try ownersDevices(session)
        let seen = sessions.lastSeen { DeviceSessions.hash($0) }
        let own = DeviceSessions.hash(token)
        let listed = try devices.list().map { entry in
            ListedDevice(
                id: entry.id, label: entry.label, since: entry.since,
                lastSeen: seen[entry.tokenHash]?.ISO8601Format(), current: entry.tokenHash == own)
        }
        return WebResponses.json(Devices(devices: listed))
    }

    /// `POST /.sandbox/s/<scope>/api/devices/revoke {"id": "…"}`: ends that device's session at
    /// once (its next request is refused and sent to the login page) and removes it from the list.
    ///
    /// - Throws: as ``deviceList(_:token:)``; ``/SandboxCore/SandboxError/Code/notFound`` for an ID
    ///   not listed; the errors of writing the list.
    func revokeDevice(
        _ request: Request, _ session: WebSessions.Session, token: String
    ) async throws(SandboxError) -> Response {
        struct Asked: Decodable { let id: String }
        let devices = try ownersDevices(session)
        let id = try await Self.json(Asked.self, from: request).id
        guard let entry = try devices.list().first(where: { $0.id == id }) else {
            throw SandboxError(.notFound, "No device '\(id.prefix(40))' is logged in: it was revoked or logged out.")
        }
        sessions.close { ConstantTime.equal(DeviceSessions.hash($0).utf8, entry.tokenHash.utf8) }
        _ = try devices.revoke(id: id)
        methods.logger.info("device \(entry.id) (\(entry.label)) revoked from the page")
        return ShareResponses.empty(204)
    }

    /// The device list, for the owner's session only.
    private func ownersDevices(_ session: WebSessions.Session) throws(SandboxError) -> DeviceSessions {
        guard session.owner else {
            throw SandboxError(
                .forbidden,
                "Only the browser that logged in with the pairing code lists and revokes devices; a browser "
                    + "paired with a pairing link cannot.")
        }
        guard let devices else { throw SandboxError(.notFound, "This share keeps no list of devices.") }
        return devices
    }
}
