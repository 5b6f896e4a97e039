#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The single-writer lock: an exclusive `flock` on `<store>/LOCK`, released when the process
/// exits, however it exits. The file holds the holder's pid for the error message.
///
/// Writers in one process queue: a second writer to a store this process is writing waits for
/// the first (flock alone would refuse it, since each open file is its own holder). A writer in
/// another process is refused at once with ``QuakeError/Kind/locked``.
package final class StoreLock {
    private let fd: Int32
    private let key: Int64

    /// Stores (directory inodes) a writer of this process holds.
    private static let held = Mutex<Set<Int64>>([])

    /// Takes the lock; while another writer of this process holds it, waits, asking `cancelled`
    /// every few milliseconds (throws ``QuakeError/Kind/interrupted`` when it says so).
    package init(storePath: String, cancelled: (() -> Bool)? = nil) throws(QuakeError) {
        let path = storePath + "/LOCK"
        let key = FileIO.identity(storePath)?.first ?? -1
        self.key = key
        while !StoreLock.held.locked({ $0.insert(key).inserted }) {
            if cancelled?() == true { throw QuakeError(.interrupted, path: storePath, detail: "interrupted") }
            FileIO.sleep(milliseconds: 5)
        }
        let f: Int32
        do throws(QuakeError) { f = try FileIO.open(path, O_CREAT | O_RDWR) } catch {
            _ = StoreLock.held.locked { $0.remove(key) }
            throw error
        }
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
            // SAFETY: withStoreBytes lends the pid's bytes for the call only; writeAll does not keep them.
            try Array("\(FileIO.processID)\n".utf8).withStoreBytes { (b) throws(QuakeError) in
                try FileIO.writeAll(f, b, at: 0, path: path)
            }
        } catch {
            FileIO.close(f)
            _ = StoreLock.held.locked { $0.remove(key) }
            throw error
        }
        fd = f
    }

    deinit {
        FileIO.unlock(fd)
        FileIO.close(fd)
        _ = StoreLock.held.locked { $0.remove(key) }
    }
}
