/// The constants of the protocol between apps and `sandboxd`, the background-transfer daemon.
///
/// Each message is one frame: a 4-byte big-endian length, then that many bytes of UTF-8 JSON (an
/// object with a `type`). Unknown fields are ignored, so either side may add fields without a new
/// version; a message whose meaning changes needs a new ``version``. The first message on a
/// connection is the client's `hello`, carrying its ``version``: the daemon answers one it does
/// not speak with an error frame (code `protocol-version`) and closes the connection.
public enum BackgroundProtocol {
    /// The version this library and daemon speak.
    public static let version = 1
    /// The largest frame body either side accepts (1 MiB): a longer declared length is refused
    /// before anything is allocated for it.
    public static let maximumFrameSize = 1 << 20
}
