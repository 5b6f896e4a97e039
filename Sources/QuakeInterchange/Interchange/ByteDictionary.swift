import Foundation
import QuakeFormat
import QuakeStore

/// A dictionary of distinct byte strings for Parquet dictionary pages: each value gets a dense
/// index in first-seen order. Open addressing over FNV-1a hashes; no per-value allocation.
package struct ByteDictionary {
    package private(set) var arena = ByteArena()
    private var slots: [Int32]
    private var mask: Int

    package init() {
        slots = [Int32](repeating: -1, count: 64)
        mask = 63
    }

    package var count: Int { arena.count }

    package static func hash(_ p: UnsafeRawBufferPointer) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        // SAFETY: iterating reads only value.count bytes of `p`, borrowed for this call.
        for b in p { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash)
    }

    /// The index of `value`, added when new.
    package mutating func index(_ value: UnsafeRawBufferPointer) -> UInt32 {
        var slot = ByteDictionary.hash(value) & mask
        while true {
            let entry = slots[slot]
            if entry < 0 { break }
            let range = arena.range(Int(entry))
            // SAFETY: the closure's pointer does not escape it; see the note inside for the bounds.
            let same = range.count == value.count && (range.isEmpty || arena.bytes.withUnsafeBytes { all in
                // SAFETY: `range` is a non-empty range of `arena.bytes`, and `value` holds range.count bytes.
                guard let stored = all.baseAddress, let wanted = value.baseAddress else { return false }
                return memcmp(stored + range.lowerBound, wanted, range.count) == 0
            })
            if same { return UInt32(entry) }
            slot = (slot + 1) & mask
        }
        let index = arena.count
        arena.append(value)
        slots[slot] = Int32(index)
        if arena.count * 2 > slots.count { grow() }
        return UInt32(index)
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        mask = slots.count - 1
        for k in 0..<arena.count {
            let range = arena.range(k)
            // SAFETY: k < arena.count, so `range` lies in the arena's bytes; `all` does not escape the closure.
            var slot = arena.bytes.withUnsafeBytes { all in
                ByteDictionary.hash(UnsafeRawBufferPointer(rebasing: all[range]))
            } & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(k)
        }
    }
}
