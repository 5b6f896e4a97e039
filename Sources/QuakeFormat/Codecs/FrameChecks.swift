import Foundation

/// The frames of one mapped file whose sums have been checked (``FrameTable/frame(_:)``): a
/// warm query decodes a frame without hashing it again. Owned by the reader that maps the file,
/// so a frame is known by its address for as long as the mapping lives.
package final class FrameChecks: @unchecked Sendable {
    /// Checked frames by address, each with its length, in a table of fixed types: a one-shot
    /// query would pay a scan of every protocol conformance in the binary to instantiate a
    /// dictionary or set of a type it had not used before.
    private var seen = IntTable()
    private let lock = NSLock()

    package init() {}

    /// Whether frame `p` was checked before.
    func contains(_ p: UnsafeRawBufferPointer) -> Bool {
        let address = Int(bitPattern: p.baseAddress)
        lock.lock()
        defer { lock.unlock() }
        return seen.value(UInt64(UInt(bitPattern: address))) == p.count
    }

    /// Notes frame `p` as checked.
    func insert(_ p: UnsafeRawBufferPointer) {
        let address = Int(bitPattern: p.baseAddress)
        lock.lock()
        seen.set(UInt64(UInt(bitPattern: address)), p.count)
        lock.unlock()
    }
}
