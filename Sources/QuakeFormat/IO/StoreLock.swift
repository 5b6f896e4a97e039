import QuakeSupport
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The single-writer lock: an exclusive `flock` on `<store>/LOCK`, released when the value is
/// released or the process exits, however it exits. The file holds the holder's pid for the
/// error message.
///
/// A writer takes it before it creates, changes or deletes any file of the store, and holds it to
/// its last file: a sync holds one for its whole run and hands it to the loads and cursor commits
/// inside it. A writer that is refused has changed nothing: it opened `LOCK` (creating it only
/// when it was missing) and read the holder's pid, no more.
///
/// Writers in one process queue: a second writer to a store this process is writing waits for
/// the first (flock alone would refuse it, since each open file is its own holder). A writer in
/// another process is refused with ``QuakeError/Kind/locked``, at once or after the wait its
/// ``LockWait`` allows.
// Sendable: every stored property is an immutable value; the process-wide set is in a Mutex.
package final class StoreLock: Sendable {
    /// The store directory the lock guards, as given.
    package let storePath: String
    private let fd: Int32
    /// The store directory's inode: writers of this process queue on it.
    private let key: Int64

    /// Stores (directory inodes) a writer of this process holds.
    private static let held = Mutex<Set<Int64>>([])

    /// Takes the lock, waiting as `wait` allows; while it waits, asks `cancelled` every few
    /// milliseconds (throws ``QuakeError/Kind/interrupted`` when it says so).
    package convenience init(storePath: String, wait: LockWait = .never,
                             cancelled: (() -> Bool)? = nil) throws(QuakeError) {
        let key = StoreLock.key(storePath)
        let patience = Patience(wait)
        var taken: Int32?
        while taken == nil {
            switch try StoreLock.attempt(storePath, key: key) {
            case .acquired(let fd):
                taken = fd
            case .again:
                continue
            case .busy(let holder):
                if patience.givesUp(on: holder) { throw StoreLock.refusal(storePath, holder, patience) }
                if cancelled?() == true {
                    throw QuakeError(.interrupted, path: storePath,
                                     detail: "interrupted while waiting for the writer lock")
                }
                FileIO.sleep(milliseconds: patience.pause())
            }
        }
        self.init(storePath: storePath, fd: taken ?? -1, key: key)
    }

    /// Takes the lock from async code: the wait sleeps the task, not a thread, and its
    /// cancellation ends the wait with `CancellationError`.
    package static func acquire(storePath: String, wait: LockWait) async throws -> StoreLock {
        let key = StoreLock.key(storePath)
        let patience = Patience(wait)
        while true {
            try Task.checkCancellation()
            switch try attempt(storePath, key: key) {
            case .acquired(let fd):
                return StoreLock(storePath: storePath, fd: fd, key: key)
            case .again:
                continue
            case .busy(let holder):
                if patience.givesUp(on: holder) { throw refusal(storePath, holder, patience) }
                try await Task.sleep(for: .milliseconds(patience.pause()))
            }
        }
    }

    private init(storePath: String, fd: Int32, key: Int64) {
        self.storePath = storePath
        self.fd = fd
        self.key = key
    }

    /// True when this is the lock of the store at `path` (the same directory, however named).
    package func guards(_ path: String) -> Bool { StoreLock.key(path) == key }

    deinit {
        FileIO.unlock(fd)
        FileIO.close(fd)
        StoreLock.release(key)
    }

    private static func key(_ storePath: String) -> Int64 { FileIO.identity(storePath)?.first ?? -1 }

    private static func release(_ key: Int64) { _ = held.locked { $0.remove(key) } }

    /// Who holds the lock.
    private enum Holder: Equatable {
        case thisProcess
        /// Another process, by the pid its `LOCK` names (`?` when it names none yet).
        case process(String)
    }

    private enum Attempt {
        case acquired(Int32)
        case busy(Holder)
        /// The `LOCK` taken was unlinked meanwhile (a new store discarded): try the one there now.
        case again
    }

    /// One try, without waiting. A refused try leaves `LOCK` as it found it.
    private static func attempt(_ storePath: String, key: Int64) throws(QuakeError) -> Attempt {
        guard held.locked({ $0.insert(key).inserted }) else { return .busy(.thisProcess) }
        let path = storePath + "/LOCK"
        var fd: Int32 = -1
        do throws(QuakeError) {
            fd = try FileIO.open(path, O_CREAT | O_RDWR)
            guard try FileIO.tryLockExclusive(fd, path: path) else {
                let holder = Holder.process(pid(fd, path))
                FileIO.close(fd)
                release(key)
                return .busy(holder)
            }
            guard let inode = FileIO.inode(of: fd), inode == FileIO.identity(path)?.first else {
                FileIO.close(fd)
                release(key)
                return .again
            }
            // the pid first, then the length: a refused writer reading meanwhile finds digits, never nothing
            let pidLine = Array("\(FileIO.processID)\n".utf8)
            // SAFETY: withStoreBytes lends the pid's bytes for the call only; writeAll does not keep them.
            try pidLine.withStoreBytes { (b) throws(QuakeError) in
                try FileIO.writeAll(fd, b, at: 0, path: path)
            }
            try FileIO.truncate(fd, to: pidLine.count, path: path)
            return .acquired(fd)
        } catch {
            if fd >= 0 { FileIO.close(fd) }
            release(key)
            throw error
        }
    }

    /// The holder's pid, as its `LOCK` says ("?" when it says none yet).
    private static func pid(_ fd: Int32, _ path: String) -> String {
        // a holder that has just made LOCK may not have written its pid yet: a few short tries
        for attempt in 0..<20 {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = (try? buffer.withUnsafeMutableBytes { bytes in
                // SAFETY: the buffer is 32 bytes and the read asks for at most 32.
                try FileIO.read(fd, into: bytes.baseAddress!, count: 32, at: 0, path: path)
            }) ?? 0
            let digits = buffer[0..<count].prefix { $0 >= 48 && $0 <= 57 }
            if !digits.isEmpty { return String(decoding: digits, as: UTF8.self) }
            if attempt < 19 { usleep(1000) }
        }
        return "?"
    }

    /// The refusal: the store, and the holder's pid.
    private static func refusal(_ storePath: String, _ holder: Holder, _ patience: Patience) -> QuakeError {
        let who: String
        switch holder {
        case .thisProcess: who = "another writer of this process (pid \(FileIO.processID))"
        case .process(let pid): who = "another writer (pid \(pid))"
        }
        let waited = patience.wait == .never ? "" : ", still after waiting \(patience.waitedText)"
        return QuakeError(.locked, path: storePath, detail: "locked by \(who)\(waited)")
    }

    /// One wait for the lock: when it began, and when it gives up.
    private struct Patience {
        let wait: LockWait
        let limit: Int64?
        let start = ContinuousClock.now

        init(_ wait: LockWait) {
            self.wait = wait
            limit = wait.milliseconds
        }

        var waitedMilliseconds: Int64 {
            let (seconds, attoseconds) = (ContinuousClock.now - start).components
            return seconds * 1000 + attoseconds / 1_000_000_000_000_000
        }

        /// The time waited in seconds, for the message (`0.2 s`).
        var waitedText: String {
            let tenths = (waitedMilliseconds + 50) / 100
            return "\(tenths / 10).\(tenths % 10) s"
        }

        /// Whether to stop waiting for `holder`: writers of this process are queued behind unless
        /// a limit is set; others are waited for only as long as the limit.
        func givesUp(on holder: Holder) -> Bool {
            switch wait {
            case .forever: return false
            case .never: return holder != .thisProcess
            case .upTo: return waitedMilliseconds >= (limit ?? 0)
            }
        }

        /// Milliseconds before the next try: 5 at first, then 20, then 50, never past the limit.
        func pause() -> Int {
            let waited = waitedMilliseconds
            let step: Int64 = waited < 200 ? 5 : waited < 2000 ? 20 : 50
            guard case .upTo = wait, let limit else { return Int(step) }
            return Int(max(1, min(step, limit - waited)))
        }
    }
}
