import Glibc
import Testing

@testable import Sandbox

@Suite("DaemonRendezvous.setTimeouts")
struct SocketTimeoutTests {
    private func receiveTimeout(_ fd: CInt) -> timeval {
        var value = timeval()
        var length = socklen_t(MemoryLayout<timeval>.size)
        getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, &length)
        return value
    }

    @Test("a timeout reaches the socket exactly; Int64.max seconds and negative ones do not trap")
    func timeouts() throws {
        var pair: [CInt] = [-1, -1]
        try #require(socketpair(AF_UNIX, CInt(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { for fd in pair { close(fd) } }
        DaemonRendezvous.setTimeouts(pair[0], .milliseconds(1_500))
        let set = receiveTimeout(pair[0])
        #expect(set.tv_sec == 1 && set.tv_usec == 500_000)
        // The kernel saturates a huge timeout to "never", which reads back as zero.
        DaemonRendezvous.setTimeouts(pair[0], .seconds(Int64.max))
        #expect(receiveTimeout(pair[0]).tv_sec == 0)
        // A negative duration is zero: no timeout (it was an invalid timeval the kernel refused).
        DaemonRendezvous.setTimeouts(pair[0], .milliseconds(-1_500))
        #expect(receiveTimeout(pair[0]).tv_sec == 0 && receiveTimeout(pair[0]).tv_usec == 0)
    }
}
