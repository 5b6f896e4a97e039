import Foundation

/// The frames of one mapped file whose sums have been checked (``FrameTable/frame(_:)``): a
/// warm query decodes a frame without hashing it again. Owned by the reader that maps the file,
/// so a frame is known by its address for as long as the mapping lives.
package final class FrameChecks: @unchecked Sendable {
    /// Checked frames by address, each with its length. Keyed by `Int`, not by a struct of
    /// its own: a one-shot query would pay a scan of every protocol conformance in the binary
    /// to instantiate a set of a new hashable type.
    private var seen: [Int: Int] = [:]
    private let lock = NSLock()

    package init() {}

    /// Whether frame `p` was checked before.
    func contains(_ p: UnsafeRawBufferPointer) -> Bool {
        let address = Int(bitPattern: p.baseAddress)
        lock.lock()
        defer { lock.unlock() }
        return seen[address] == p.count
    }

    /// Notes frame `p` as checked.
    func insert(_ p: UnsafeRawBufferPointer) {
        let address = Int(bitPattern: p.baseAddress)
        lock.lock()
        seen[address] = p.count
        lock.unlock()
    }
}
