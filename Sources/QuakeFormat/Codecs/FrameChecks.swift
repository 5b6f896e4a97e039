import Foundation

/// The frames of one mapped file whose sums have been checked (``FrameTable/frame(_:)``): a
/// warm query decodes a frame without hashing it again. Owned by the reader that maps the file,
/// so a frame is known by its address for as long as the mapping lives.
package final class FrameChecks: @unchecked Sendable {
    private struct Frame: Hashable {
        let address: UInt
        let length: Int
    }
    private var seen: Set<Frame> = []
    private let lock = NSLock()

    package init() {}

    /// Whether frame `p` was checked before.
    func contains(_ p: UnsafeRawBufferPointer) -> Bool {
        let f = Frame(address: UInt(bitPattern: p.baseAddress), length: p.count)
        lock.lock()
        defer { lock.unlock() }
        return seen.contains(f)
    }

    /// Notes frame `p` as checked.
    func insert(_ p: UnsafeRawBufferPointer) {
        let f = Frame(address: UInt(bitPattern: p.baseAddress), length: p.count)
        lock.lock()
        seen.insert(f)
        lock.unlock()
    }
}
