import Glibc
import NIOCore
import SandboxTransfer

/// Who is at the other end of a Unix socket: `SO_PEERCRED` (socket(7)), the credentials the kernel
/// recorded when the peer connected, which it cannot forge.
struct PeerCredentials: Sendable, Hashable {
    /// `struct ucred` from `<sys/socket.h>` (under `_GNU_SOURCE`, which the Glibc module lacks):
    /// three 32-bit fields, laid out the same way.
    private struct UCred: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    var pid: Int32
    var uid: UInt32
    var gid: UInt32

    /// The credentials of `channel`'s peer.
    ///
    /// - Returns: the credentials; the future fails with ``SandboxTransfer/SandboxError``
    ///   (`permission-denied`) when the channel is not a socket NIO can ask (a programming error),
    ///   or with the error of `getsockopt`.
    static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(
                SandboxError(
                    SandboxError.Code.permissionDenied,
                    "The connection is not a socket whose peer can be identified (SO_PEERCRED); it is refused."))
        }
        let future: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return future.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
    }
}
