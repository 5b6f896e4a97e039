/// A column of byte strings stored end to end: one allocation for all values, no per-row `String`.
///
/// An empty value stands for null (feeds write an empty field for a missing value).
package struct ByteArena: Sendable, Equatable {
    package var bytes: [UInt8] = []
    package var ends: [Int] = []

    package init() {}

    package init(bytes: [UInt8], ends: [Int]) {
        self.bytes = bytes
        self.ends = ends
    }

    package var count: Int { ends.count }

    @inline(__always)
    package func range(_ i: Int) -> Range<Int> { (i == 0 ? 0 : ends[i - 1])..<ends[i] }

    @inline(__always)
    package func isNull(_ i: Int) -> Bool { range(i).isEmpty }

    package mutating func append(_ value: UnsafeRawBufferPointer) {
        // SAFETY: append copies value.count bytes out of `value`, borrowed for this call.
        bytes.append(contentsOf: value)
        ends.append(bytes.count)
    }

    package mutating func append(_ value: some Collection<UInt8>) {
        bytes.append(contentsOf: value)
        ends.append(bytes.count)
    }

    package mutating func append(from other: ByteArena, row: Int) {
        let range = other.range(row)
        bytes.append(contentsOf: other.bytes[range])
        ends.append(bytes.count)
    }

    package mutating func appendNull() { ends.append(bytes.count) }

    /// The values equal to `value`, byte for byte.
    /// - Complexity: O(count); bytes are compared only where the lengths agree.
    package func count(of value: [UInt8]) -> Int {
        var length = 0, start = 0
        for end in ends {
            if end - start == value.count && bytes[start..<end].elementsEqual(value) { length += 1 }
            start = end
        }
        return length
    }

    /// The status of a tombstone: an event the source deleted.
    package static let deletedStatus = Array("deleted".utf8)

    /// Appends every value of `other`.
    package mutating func append(contentsOf other: ByteArena) {
        let base = bytes.count
        bytes.append(contentsOf: other.bytes)
        ends.append(contentsOf: other.ends.lazy.map { $0 + base })
    }

    /// Appends the values of `other` at `rows`, one copy of their bytes.
    package mutating func append(contentsOf other: ByteArena, rows: Range<Int>) {
        guard !rows.isEmpty else { return }
        let lower = rows.lowerBound == 0 ? 0 : other.ends[rows.lowerBound - 1]
        let upper = other.ends[rows.upperBound - 1]
        let shift = bytes.count - lower
        bytes.append(contentsOf: other.bytes[lower..<upper])
        ends.append(contentsOf: other.ends[rows].lazy.map { $0 + shift })
    }

    /// Null (empty) values among `rows`.
    package func nullCount(_ rows: Range<Int>) -> Int {
        var total = 0
        for i in rows where isNull(i) { total += 1 }
        return total
    }

    /// The value as a Swift string, or nil when empty.
    package func string(_ i: Int) -> String? {
        let bounds = range(i)
        if bounds.isEmpty { return nil }
        return String(decoding: bytes[bounds], as: UTF8.self)
    }

    /// True when row `i` of `self` and row `j` of `other` hold the same bytes.
    package func equal(_ i: Int, _ other: ByteArena, _ j: Int) -> Bool {
        let mine = range(i), theirs = other.range(j)
        guard mine.count == theirs.count else { return false }
        // SAFETY: mine and theirs are ranges of each arena (ends ascend within bytes) of equal count, so memcmp reads
        // mine.count bytes inside both; an Array's base address is non-nil even when empty.
        return bytes.withUnsafeBufferPointer { p in
            other.bytes.withUnsafeBufferPointer { q in
                memcmp(p.baseAddress! + mine.lowerBound, q.baseAddress! + theirs.lowerBound, mine.count) == 0
            }
        }
    }

    /// True when row `i` is row `j` of `other` double-encoded (see ``Mojibake``).
    package func garbles(_ i: Int, of other: ByteArena, _ j: Int) -> Bool {
        let mine = range(i), theirs = other.range(j)
        // cheap exits: mojibake is longer than its original, and the original is not empty
        guard mine.count > theirs.count, !theirs.isEmpty else { return false }
        // SAFETY: mine and theirs are ranges inside each arena's bytes, so both slices lie in their buffers; the
        // pointers do not escape the closures.
        return bytes.withUnsafeBytes { p in
            other.bytes.withUnsafeBytes { q in
                Mojibake.garbles(UnsafeRawBufferPointer(rebasing: p[mine]),
                                 of: UnsafeRawBufferPointer(rebasing: q[theirs]))
            }
        }
    }

    /// Lexicographic byte order of row `i` against row `j` of `other`.
    package func compare(_ i: Int, _ other: ByteArena, _ j: Int) -> Int {
        let mine = range(i), theirs = other.range(j)
        let shorter = min(mine.count, theirs.count)
        // SAFETY: shorter <= mine.count, theirs.count and both ranges lie in their arenas' bytes, so memcmp reads
        // shorter bytes
        // inside each; shorter == 0 skips the call.
        let compared: Int32 = shorter == 0 ? 0 : bytes.withUnsafeBufferPointer { p in
            other.bytes.withUnsafeBufferPointer { q in
                memcmp(p.baseAddress! + mine.lowerBound, q.baseAddress! + theirs.lowerBound, shorter)
            }
        }
        if compared != 0 { return Int(compared) }
        return mine.count - theirs.count
    }

    /// A new arena holding rows `rows`, in order: one copy of their bytes.
    package func slice(_ rows: Range<Int>) -> ByteArena {
        guard !rows.isEmpty else { return ByteArena() }
        let lo = rows.lowerBound == 0 ? 0 : ends[rows.lowerBound - 1]
        return ByteArena(bytes: Array(bytes[lo..<ends[rows.upperBound - 1]]), ends: ends[rows].map { $0 - lo })
    }

    /// A new arena of the same rows with row `row` of each replacement holding row `source` of
    /// `from` instead; `replacements` ascending by `row`, each row at most once.
    package func replacing(_ replacements: [(row: Int, from: ByteArena, source: Int)]) -> ByteArena {
        var out = ByteArena()
        out.ends.reserveCapacity(count)
        out.bytes.reserveCapacity(bytes.count)
        var next = 0
        for replacement in replacements {
            if replacement.row > next {
                out.append(contentsOf: slice(next..<replacement.row))
            }
            out.append(from: replacement.from, row: replacement.source)
            next = replacement.row + 1
        }
        if next < count { out.append(contentsOf: slice(next..<count)) }
        return out
    }

    /// A new arena holding the rows at `order`, in that order.
    /// - Complexity: O(rows + bytes gathered), one copy per row into a buffer sized first.
    package func gather(_ order: [Int]) -> ByteArena {
        var total = 0
        var inside = true
        for i in order {
            let range = range(i)
            total += range.count
            inside = inside && range.lowerBound >= 0 && range.upperBound <= bytes.count
        }
        guard inside else { return gatherSlowly(order) }
        var ends: [Int] = []
        ends.reserveCapacity(order.count)
        // SAFETY: every range of `order` was checked to lie in `bytes` above, and the ranges sum to
        // `total`, the capacity of `target`: each copy lands in `target` after the ones before it.
        let gathered = [UInt8](unsafeUninitializedCapacity: total) { target, initialized in
            bytes.withUnsafeBytes { source in
                var at = 0
                for i in order {
                    let range = range(i)
                    if !range.isEmpty {
                        memcpy(target.baseAddress! + at, source.baseAddress! + range.lowerBound, range.count)
                    }
                    at += range.count
                    ends.append(at)
                }
                initialized = at
            }
        }
        return ByteArena(bytes: gathered, ends: ends)
    }

    /// ``gather(_:)`` slice by slice, for an arena whose ends do not lie in its bytes (not one a
    /// decoder built: those check their ends).
    private func gatherSlowly(_ order: [Int]) -> ByteArena {
        var out = ByteArena()
        out.ends.reserveCapacity(order.count)
        for i in order { out.append(from: self, row: i) }
        return out
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
