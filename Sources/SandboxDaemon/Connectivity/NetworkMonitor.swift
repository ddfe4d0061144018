import Foundation
import Glibc
import Logging
import SandboxCore
import SandboxTransfer
import Synchronization

/// Watches the kernel's routing tables: a `NETLINK_ROUTE` socket subscribed to link, address and
/// route changes (IPv4 and IPv6), read on a thread the monitor owns, which calls `onChange` after
/// each batch of changes and after each ``requestEvaluation()``. No polling: the thread sleeps in
/// `poll(2)` until the kernel or the daemon wakes it. `onChange` runs on that thread, so it may
/// block (resolve names, look up routes).
///
/// When the netlink socket cannot be opened (a kernel or a sandbox without it), the monitor logs
/// it and still evaluates on request: tasks then wait only after a failed attempt and continue
/// after the next one.
final class NetworkMonitor: Sendable {
    /// `struct sockaddr_nl` of `<linux/netlink.h>`, which Swift's Glibc module does not import:
    /// the same four fields, the same (natural) layout.
    private struct NetlinkAddress {
        var family = UInt16(AF_NETLINK)
        var padding: UInt16 = 0
        var pid: UInt32 = 0
        var groups: UInt32
    }

    /// `NETLINK_ROUTE` of `<linux/netlink.h>`.
    private static let netlinkRoute: Int32 = 0
    /// `RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR |
    /// RTMGRP_IPV6_ROUTE` of `<linux/rtnetlink.h>`.
    private static let groups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400

    private let netlink: Int32
    /// The wake-up pipe: read end, write end.
    private let wake: (read: Int32, write: Int32)
    private let stopped = StopFlag()

    /// Opens the sockets and starts the thread.
    ///
    /// - Throws: `daemon-unavailable` when the wake-up pipe or the thread cannot
    ///   be made.
    init(logger: Logger, onChange: @escaping @Sendable () -> Void) throws(SandboxError) {
        var fds: [Int32] = [-1, -1]
        // pipe2 needs _GNU_SOURCE, which the Glibc module lacks: set the flags one by one (the
        // daemon starts no process before this runs, so none inherits the pipe meanwhile).
        guard pipe(&fds) == 0 else {
            throw SandboxError(
                .daemonUnavailable, "sandboxd could not make a pipe: \(String(cString: strerror(errno))).")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wake = (fds[0], fds[1])
        netlink = Self.openNetlink(logger: logger)
        let (netlink, wake, stopped) = (netlink, wake, stopped)
        do {
            try OwnedThread.detached(name: "sandboxd-network") {
                Self.run(netlink: netlink, wake: wake.read, stopped: stopped, onChange: onChange)
                close(wake.read)
                if netlink >= 0 { close(netlink) }
            }
        } catch {
            for fd in [wake.read, wake.write, netlink] where fd >= 0 { close(fd) }
            throw SandboxError(.daemonUnavailable, "sandboxd could not start its network thread: \(error.message)")
        }
    }

    /// Whether the kernel's change notifications are received (else only requests wake it).
    var watchesKernel: Bool { netlink >= 0 }

    /// Wakes the thread to call `onChange` (a task was added, an attempt failed). Requests made
    /// while it runs are coalesced into one more call.
    func requestEvaluation() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)  // a full pipe already holds a pending wake-up
    }

    /// Stops the thread (after the `onChange` running now, if any).
    func stop() {
        guard !stopped.value.exchange(true, ordering: .acquiringAndReleasing) else { return }
        requestEvaluation()
        close(wake.write)
    }

    deinit { stop() }

    private static func openNetlink(logger: Logger) -> Int32 {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), netlinkRoute)
        guard fd >= 0 else {
            logger.warning("No netlink socket (\(String(cString: strerror(errno)))): network changes are not watched.")
            return -1
        }
        var address = NetlinkAddress(groups: groups)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<NetlinkAddress>.size))
            }
        }
        guard bound == 0 else {
            logger.warning(
                "The netlink socket cannot subscribe (\(String(cString: strerror(errno)))): network changes are not watched."
            )
            close(fd)
            return -1
        }
        return fd
    }

    private static func run(
        netlink: Int32, wake: Int32, stopped: StopFlag, onChange: @Sendable () -> Void
    ) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        if netlink >= 0 {
            _ = fcntl(netlink, F_SETFL, fcntl(netlink, F_GETFL) | O_NONBLOCK)
            descriptors.append(pollfd(fd: netlink, events: Int16(POLLIN), revents: 0))
        }
        while !stopped.value.load(ordering: .acquiring) {
            for index in descriptors.indices { descriptors[index].revents = 0 }
            guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 else {
                if errno == EINTR { continue }
                return
            }
            // Drain both: one evaluation answers every change and request so far. A netlink
            // overrun (ENOBUFS) only means that changes were missed: evaluating covers them.
            for descriptor in descriptors where descriptor.revents != 0 {
                while buffer.withUnsafeMutableBytes({ read(descriptor.fd, $0.baseAddress, $0.count) }) > 0 {}
            }
            if stopped.value.load(ordering: .acquiring) { return }
            onChange()
        }
    }
}

/// The monitor's stop flag, shared with its thread.
private final class StopFlag: Sendable {
    let value = Atomic(false)
}
