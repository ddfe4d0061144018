import Foundation

/// The system's dynamic loader (`ld.so`), which runs any ELF file it can read and map: what a
/// confined app would use to run code it wrote where `execve` is refused.
public enum DynamicLoader {
    /// Its path (x86-64 or AArch64).
    ///
    /// - Throws: ``TestFailure`` when neither is present.
    public static func path() throws -> String {
        for path in ["/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        throw TestFailure("no dynamic loader in /lib64 or /lib")
    }
}
