/// Assigns dense codes to distinct byte strings without allocating per lookup: an
/// open-addressing hash table over the bytes of one ``ByteArena`` of distinct values.
package struct SliceInterner {
    package private(set) var values = ByteArena()
    private var slots: [Int32]
    private var hashes: [UInt64] = []
    private var mask: Int

    package init(capacity: Int = 64) {
        var cap = 16
        while cap < capacity * 2 { cap <<= 1 }
        slots = Array(repeating: -1, count: cap)
        mask = cap - 1
    }

    package var count: Int { values.count }

    /// The code of `p`, adding it when new. Codes count from 0 in first-seen order.
    package mutating func intern(_ p: UnsafeRawBufferPointer) -> Int {
        let hash = Checksum.hash(p)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = Int(slots[slot])
            if entry < 0 { break }
            if hashes[entry] == hash && equal(entry, p) { return entry }
            slot = (slot + 1) & mask
        }
        let code = values.count
        values.append(p)
        hashes.append(hash)
        slots[slot] = Int32(code)
        if values.count * 2 > slots.count { grow() }
        return code
    }

    /// The code of row `row` of `arena`, adding it when new.
    package mutating func intern(_ arena: ByteArena, row: Int) -> Int {
        // SAFETY: a ByteArena's row ranges lie inside its bytes; intern copies the slice, which does not
        // escape the closure.
        arena.bytes.withUnsafeBytes { raw in intern(UnsafeRawBufferPointer(rebasing: raw[arena.range(row)])) }
    }

    /// The code of row `row` of `arena`, or nil when absent.
    package func lookup(_ arena: ByteArena, row: Int) -> Int? {
        // SAFETY: as in intern(_:row:); lookup only reads the slice.
        arena.bytes.withUnsafeBytes { raw in lookup(UnsafeRawBufferPointer(rebasing: raw[arena.range(row)])) }
    }

    /// The code of `p`, or nil when absent.
    package func lookup(_ p: UnsafeRawBufferPointer) -> Int? {
        let hash = Checksum.hash(p)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = Int(slots[slot])
            if entry < 0 { return nil }
            if hashes[entry] == hash && equal(entry, p) { return entry }
            slot = (slot + 1) & mask
        }
    }

    private func equal(_ k: Int, _ p: UnsafeRawBufferPointer) -> Bool {
        let range = values.range(k)
        guard range.count == p.count else { return false }
        assert(range.lowerBound >= 0 && range.upperBound <= values.bytes.count, "value \(k) outside the arena's bytes")
        // SAFETY: range lies in the arena's bytes and range.count == p.count, so memcmp reads inside both buffers;
        // with p.count > 0 neither base address is nil.
        return values.bytes.withUnsafeBytes { b in
            p.count == 0 || memcmp(b.baseAddress! + range.lowerBound, p.baseAddress!, p.count) == 0
        }
    }

    private mutating func grow() {
        let cap = slots.count * 2
        slots = Array(repeating: -1, count: cap)
        mask = cap - 1
        for k in 0..<hashes.count {
            var slot = Int(truncatingIfNeeded: hashes[k]) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(k)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
