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
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        // SAFETY: iterating reads only value.count bytes of `p`, borrowed for this call.
        for b in p { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: h)
    }

    /// The index of `value`, added when new.
    package mutating func index(_ value: UnsafeRawBufferPointer) -> UInt32 {
        var s = ByteDictionary.hash(value) & mask
        while true {
            let e = slots[s]
            if e < 0 { break }
            let r = arena.range(Int(e))
            // SAFETY: the closure's pointer does not escape it; see the note inside for the bounds.
            let same = r.count == value.count && (r.isEmpty || arena.bytes.withUnsafeBytes { all in
                // SAFETY: `r` is a non-empty range of `arena.bytes`, and `value` holds r.count bytes.
                guard let a = all.baseAddress, let b = value.baseAddress else { return false }
                return memcmp(a + r.lowerBound, b, r.count) == 0
            })
            if same { return UInt32(e) }
            s = (s + 1) & mask
        }
        let k = arena.count
        arena.append(value)
        slots[s] = Int32(k)
        if arena.count * 2 > slots.count { grow() }
        return UInt32(k)
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        mask = slots.count - 1
        for k in 0..<arena.count {
            let r = arena.range(k)
            // SAFETY: k < arena.count, so r lies in the arena's bytes; `all` does not escape the closure.
            var s = arena.bytes.withUnsafeBytes { all in
                ByteDictionary.hash(UnsafeRawBufferPointer(rebasing: all[r]))
            } & mask
            while slots[s] >= 0 { s = (s + 1) & mask }
            slots[s] = Int32(k)
        }
    }
}
