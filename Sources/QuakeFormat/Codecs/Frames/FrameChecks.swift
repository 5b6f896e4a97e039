import QuakeSupport
import Synchronization

/// The frames of one mapped file whose sums have been checked (``FrameTable/frame(_:)``): a
/// warm query decodes a frame without hashing it again. Owned by the reader that maps the file,
/// so a frame is known by its address for as long as the mapping lives.
package final class FrameChecks: Sendable {
    /// Checked frames by address, each with its length, in a table of fixed types: a one-shot
    /// query would pay a scan of every protocol conformance in the binary to instantiate a
    /// dictionary or set of a type it had not used before.
    private let seen = Mutex(IntTable())

    package init() {}

    /// Whether frame `p` was checked before.
    func contains(_ p: UnsafeRawBufferPointer) -> Bool {
        // SAFETY: only the address is kept, as a number; the memory is never read through it.
        let address = UInt64(UInt(bitPattern: p.baseAddress)), count = p.count
        return seen.locked { $0.value(address) == count }
    }

    /// Notes frame `p` as checked.
    func insert(_ p: UnsafeRawBufferPointer) {
        // SAFETY: as in contains: only the address, as a number.
        let address = UInt64(UInt(bitPattern: p.baseAddress)), count = p.count
        seen.locked { $0.set(address, count) }
    }
}
