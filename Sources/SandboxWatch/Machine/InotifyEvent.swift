/// One record read from an inotify descriptor, decoded (see inotify(7), `struct inotify_event`).
struct InotifyEvent: Sendable, Equatable {
    /// The watch descriptor, or -1 for `IN_Q_OVERFLOW`.
    var watch: Int32
    var mask: Mask
    /// Pairs `IN_MOVED_FROM` with `IN_MOVED_TO`; 0 otherwise.
    var cookie: UInt32
    /// The entry's name inside the watched directory, `nil` for events about the directory itself.
    var name: FileName?

    init(watch: Int32, mask: Mask, cookie: UInt32 = 0, name: FileName? = nil) {
        self.watch = watch
        self.mask = mask
        self.cookie = cookie
        self.name = name
    }

    /// The `IN_*` bits, spelled out so the state machine needs no Glibc (values from
    /// `<sys/inotify.h>`, stable kernel ABI).
    struct Mask: OptionSet, Sendable, Hashable {
        let rawValue: UInt32
        static let modify = Mask(rawValue: 0x0000_0002)
        static let attributes = Mask(rawValue: 0x0000_0004)
        static let closeWrite = Mask(rawValue: 0x0000_0008)
        static let movedFrom = Mask(rawValue: 0x0000_0040)
        static let movedTo = Mask(rawValue: 0x0000_0080)
        static let create = Mask(rawValue: 0x0000_0100)
        static let delete = Mask(rawValue: 0x0000_0200)
        static let deleteSelf = Mask(rawValue: 0x0000_0400)
        static let moveSelf = Mask(rawValue: 0x0000_0800)
        static let unmount = Mask(rawValue: 0x0000_2000)
        static let queueOverflow = Mask(rawValue: 0x0000_4000)
        static let ignored = Mask(rawValue: 0x0000_8000)
        static let onlyDirectory = Mask(rawValue: 0x0100_0000)
        static let excludeUnlinked = Mask(rawValue: 0x0400_0000)
        static let isDirectory = Mask(rawValue: 0x4000_0000)

        /// What every watch asks for. No `IN_DONT_FOLLOW`: watches are added through
        /// `/proc/self/fd/N`, a magic link that must be followed to reach the directory.
        static let watched: Mask = [
            .create, .delete, .movedFrom, .movedTo, .modify, .attributes, .closeWrite,
            .deleteSelf, .moveSelf, .onlyDirectory, .excludeUnlinked,
        ]
    }
}

/// Decodes the records of one `read(2)` from an inotify descriptor.
enum InotifyParser {
    /// Size of `struct inotify_event` without its name.
    static let headerSize = 16

    /// The records in `bytes`, in order. A truncated record at the end (which the kernel never
    /// produces) is ignored.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var offset = 0
        while offset + headerSize <= bytes.count {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let cookie = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameStart = offset + headerSize
            guard nameStart + length <= bytes.count else { break }
            var name: FileName?
            if length > 0 {
                // NUL-padded to an alignment boundary. The bytes are kept as they are (a name need
                // not be UTF-8), so that the item can be reached by its name.
                let raw = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<(nameStart + length)])
                let end = raw.firstIndex(of: 0) ?? raw.count
                if end > 0 { name = FileName(uncheckedBytes: raw[..<end]) }
            }
            events.append(
                InotifyEvent(watch: watch, mask: InotifyEvent.Mask(rawValue: mask), cookie: cookie, name: name))
            offset = nameStart + length
        }
        return events
    }
}
