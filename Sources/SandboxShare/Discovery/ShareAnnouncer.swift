import NIOCore
import SandboxCore
import Synchronization

/// A running share's announcement: started once the share listens (its port known), withdrawn
/// when it stops — SIGINT and SIGTERM included, which end the share through its graceful shutdown.
final class ShareAnnouncer: Sendable {
    private let announcement: ShareAnnouncement?
    private let running = Mutex<AvahiAnnouncer?>(nil)

    init(_ announcement: ShareAnnouncement?) {
        self.announcement = announcement
    }

    /// Starts announcing `configuration`'s share on `port`, when it has an announcement; returns at
    /// once (the daemon is reached on Avahi's thread). A failure is reported, never thrown: the
    /// share is served all the same.
    func start(configuration: ShareConfiguration, port: Int) {
        guard let announcement else { return }
        let services = AnnouncedServices(
            name: announcement.name, configuration: configuration, port: port, interfaces: Self.interfaces())
        do throws(SandboxError) {
            let announcer = try AvahiAnnouncer.start(services, report: announcement.report)
            running.withLock { $0 = announcer }
        } catch {
            announcement.report(.failed(error))
        }
    }

    /// Withdraws the records, on the I/O engine (it waits for the daemon's answers).
    func withdraw() async {
        guard
            let announcer = running.withLock({ running in
                defer { running = nil }
                return running
            })
        else { return }
        do {
            try await IOEngine.shared.run { announcer.withdraw() }
        } catch {
            // The engine is shut down: the process ends, and the daemon drops the records of a
            // client whose bus connection closed.
            announcement?.report(
                .failed(SandboxError(.discoveryFailed, "The announcement was not withdrawn: \(error)")))
        }
    }

    /// This machine's interface addresses, to find the interface a share's address is on.
    private static func interfaces() -> [AnnouncedServices.InterfaceAddress] {
        do {
            return try System.enumerateDevices().compactMap { device in
                guard let address = device.address?.ipAddress else { return nil }
                return .init(index: Int32(clamping: device.interfaceIndex), address: address)
            }
        } catch {
            return []  // unknown: announced on every interface
        }
    }
}
