import Synchronization

extension Mutex where Value: ~Copyable {
    /// `withLock(_:)`, with each acquire and release told to ThreadSanitizer when the process
    /// runs under it (see ``RaceDetector``); otherwise exactly `withLock(_:)` after one check of
    /// two globals. Every lock in the package is taken through this, so a `--sanitize=thread`
    /// run reports real races only.
    @inline(__always)
    package borrowing func locked<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result)
        throws(E) -> sending Result {
        guard let acquire = RaceDetector.acquire, let release = RaceDetector.release else {
            return try withLock(body)
        }
        // SAFETY: a Mutex is never moved while borrowed (it has raw layout), so `key` names the same
        // lock for every thread and every call; it is ThreadSanitizer's key only, never dereferenced.
        let key = withUnsafePointer(to: self) { UnsafeRawPointer($0) }
        return try withLock { (value) throws(E) -> sending Result in
            acquire(key)
            defer { release(key) }
            return try body(&value)
        }
    }
}
