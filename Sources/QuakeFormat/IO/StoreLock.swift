#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The single-writer lock: an exclusive `flock` on `<store>/LOCK`, released when the process
/// exits, however it exits. The file holds the holder's pid for the error message.
package final class StoreLock {
    private let fd: Int32

    package init(storePath: String) throws(StoreError) {
        let path = storePath + "/LOCK"
        let f = try FileIO.open(path, O_CREAT | O_RDWR)
        do throws(QuakeError) {
            guard try FileIO.tryLockExclusive(f, path: path) else {
                var buf = [UInt8](repeating: 0, count: 32)
                let n = (try? buf.withUnsafeMutableBytes { b in
                    // SAFETY: the buffer is 32 bytes and the read asks for at most 32.
                    try FileIO.read(f, into: b.baseAddress!, count: 32, at: 0, path: path)
                }) ?? 0
                let digits = buf[0..<n].prefix { $0 >= 48 && $0 <= 57 }
                let pid = digits.isEmpty ? "?" : String(decoding: digits, as: UTF8.self)
                throw QuakeError(.locked, path: storePath,
                                 detail: "locked by another writer (pid \(pid)); wait for it to finish")
            }
            try FileIO.truncate(f, to: 0, path: path)
            try Array("\(FileIO.processID)\n".utf8).withStoreBytes { (b) throws(QuakeError) in
                try FileIO.writeAll(f, b, at: 0, path: path)
            }
        } catch {
            FileIO.close(f)
            throw error
        }
        fd = f
    }

    deinit {
        FileIO.unlock(fd)
        FileIO.close(fd)
    }
}
