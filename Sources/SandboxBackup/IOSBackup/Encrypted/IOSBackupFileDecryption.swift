import Crypto
import Foundation
import Glibc
import SandboxCore
import _CryptoExtras

/// Decrypts one file of an encrypted iOS backup (or its `Manifest.db`): AES-256-CBC with a zero IV,
/// PKCS7 padding, in chunks of ``chunkSize`` so that memory stays bounded whatever the file's size.
///
/// The padding is checked first, from the last block alone; then only the ciphertext that holds
/// the file's `Size` bytes is read, decrypted and written. Blocking I/O: call it on a thread of
/// your own or the I/O engine, never on the cooperative pool.
enum IOSBackupFileDecryption {
    /// The bytes decrypted at a time: 1 MiB.
    static let chunkSize = 1 << 20

    /// Decrypts `source` into `destination` (at its current position).
    ///
    /// - Parameters:
    ///   - source: the encrypted file, read with `pread` from its start.
    ///   - destination: where the plaintext goes.
    ///   - key: the file's unwrapped key.
    ///   - size: the record's `Size`: the plaintext is cut there; `nil` keeps all of it (Manifest.db).
    ///   - name: the file, for errors (`file 3fec…`, `Manifest.db`).
    ///   - path: its path in the backup, for errors.
    /// - Returns: the bytes written.
    /// - Throws: ``SandboxCore/SandboxError/Code/iosBackupDamaged`` for ciphertext that is empty or
    ///   not a whole number of blocks, wrong padding, a `size` past the plaintext or negative, or a file that
    ///   shrank while read; the errors of `pread`, and of `write` on `destination`.
    static func decrypt(
        from source: CInt, to destination: CInt, key: SymmetricKey, size: Int64?, name: String, path: String
    ) throws(SandboxError) -> Int64 {
        func damaged(_ problem: String) -> SandboxError {
            SandboxError(
                .iosBackupDamaged,
                "The encrypted data of \(name) at '\(path)' \(problem); the backup is damaged, or the file changed after it was made.",
                path: path)
        }
        var info = stat()
        _ = try syscall("fstat", path: path) { fstat(source, &info) }
        let total = Int64(info.st_size)
        guard total > 0, total % 16 == 0 else {
            throw damaged("is \(total) bytes, not a whole, non-zero number of 16-byte AES blocks")
        }
        // The padding, from the last block (decrypted with the block before it as its IV).
        let tail = try read(source, at: max(0, total - 32), count: total >= 32 ? 32 : 16, path: path, damaged)
        let lastBlock = try cbc(
            Array(tail.suffix(16)), key: key, iv: tail.count == 32 ? Array(tail.prefix(16)) : zeroIV, damaged)
        let padding = Int(lastBlock[15])
        guard (1...16).contains(padding), lastBlock.suffix(padding).allSatisfy({ Int($0) == padding }) else {
            throw damaged("ends in wrong padding")
        }
        let plaintextSize = total - Int64(padding)
        if let size, size > plaintextSize || size < 0 {
            throw damaged("holds \(plaintextSize) bytes, not the \(size) its record says")
        }
        let output = size ?? plaintextSize
        let needed = min(total, (output + 15) / 16 * 16)
        var iv = zeroIV
        var offset: Int64 = 0
        while offset < needed {
            let count = Int(min(Int64(chunkSize), needed - offset))
            let chunk = try read(source, at: offset, count: count, path: path, damaged)
            let plaintext = try cbc(chunk, key: key, iv: iv, damaged)
            iv = Array(chunk.suffix(16))
            let keep = Int(min(Int64(plaintext.count), output - offset))
            try plaintext.withBytes { bytes throws(SandboxError) in
                try FullWrite.write(
                    UnsafeRawBufferPointer(rebasing: bytes[0..<keep]), to: destination,
                    path: "the decrypted copy of \(name)")
            }
            offset += Int64(count)
        }
        return output
    }

    private static let zeroIV = [UInt8](repeating: 0, count: 16)

    /// Decrypts whole blocks, the padding left in.
    private static func cbc(
        _ ciphertext: [UInt8], key: SymmetricKey, iv: [UInt8], _ damaged: (String) -> SandboxError
    ) throws(SandboxError) -> [UInt8] {
        do {
            return Array(
                try AES._CBC.decrypt(ciphertext, using: key, iv: try AES._CBC.IV(ivBytes: iv), noPadding: true))
        } catch {
            throw damaged("does not decrypt (\(error))")
        }
    }

    /// Reads exactly `count` bytes at `offset`.
    private static func read(
        _ fd: CInt, at offset: Int64, count: Int, path: String, _ damaged: (String) -> SandboxError
    ) throws(SandboxError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = try buffer.withUnsafeMutableBytes { bytes in
                Result { () throws(SandboxError) in
                    try syscall("pread", path: path) {
                        pread(fd, bytes.baseAddress.map { $0 + filled }, count - filled, off_t(offset + Int64(filled)))
                    }
                }
            }.get()
            guard got > 0 else { throw damaged("ended at \(offset + Int64(filled)) bytes while being read") }
            filled += got
        }
        return buffer
    }
}
