#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The single-writer lock: an exclusive `flock` on `<store>/LOCK`, released when the process
/// exits, however it exits. The file holds the holder's pid for the error message.
final class StoreLock {
    private let fd: Int32

    init(storePath: String) throws(StoreError) {
        let path = storePath + "/LOCK"
        let f = open(path, O_CREAT | O_RDWR, 0o644)
        guard f >= 0 else { throw .io("\(path): \(FileIO.errorText())") }
        if flock(f, LOCK_EX | LOCK_NB) != 0 {
            var buf = [UInt8](repeating: 0, count: 32)
            let n = pread(f, &buf, 32, 0)
            close(f)
            let digits = n > 0 ? buf[0..<n].prefix { $0 >= 48 && $0 <= 57 } : []
            let pid = digits.isEmpty ? "?" : String(decoding: digits, as: UTF8.self)
            throw .locked("store \(storePath) is locked by another writer (pid \(pid)); wait for it to finish")
        }
        fd = f
        ftruncate(f, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pwrite(f, pid, pid.count, 0)
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
