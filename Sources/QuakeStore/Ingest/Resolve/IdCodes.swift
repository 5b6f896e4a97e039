import Foundation
import QuakeFormat

/// Dense codes for the ids of one id bucket's records, counted from 0 in first-seen order: the
/// codes a ``SliceInterner`` gives, found with memory traffic that grows with the records.
///
/// One hash table over a bucket's records outgrows the cache as a load grows (1.5 M records a
/// bucket at 100 M rows), and then every lookup misses: the resolve pass took 19x its 10 M-row
/// time at 100 M rows. So the records are grouped first by the high bits of their id hash, a
/// stable counting sort into groups of about ``groupRows``, and each group is deduplicated with a
/// table that stays in the cache. Equal ids hash alike, so they land in one group.
struct IdCodes {
    /// Per record, the code of its id.
    private(set) var code: [Int]
    /// Per record, its id's hash (``IdHashes/hash(_:)``), for the index entries.
    private(set) var hashes: [UInt64]
    /// Distinct ids.
    private(set) var count = 0

    /// Records a group holds about (at most twice this, but for a skewed hash): its table of
    /// 8-byte slots, 256 KB, stays in the cache.
    static let groupRows = 1 << 14

    /// - Complexity: O(n) for n records, plus the bytes of the ids hashed and compared.
    init(_ ids: ByteArena) {
        let records = ids.count
        let hashes = IdCodes.hashes(of: ids)
        var groupBits = 0
        while groupBits < 20 && (records >> groupBits) > IdCodes.groupRows { groupBits += 1 }
        let (starts, order) = IdCodes.groupOrder(hashes, groupBits: groupBits)
        let first = IdCodes.firstRecords(ids, hashes: hashes, starts: starts, order: order)
        var code = [Int](repeating: 0, count: records)
        var distinct = 0
        for i in 0..<records {
            let firstRecord = first[i]
            if firstRecord == i {
                code[i] = distinct
                distinct += 1
            } else {
                code[i] = code[firstRecord]
            }
        }
        self.code = code
        self.hashes = hashes
        self.count = distinct
    }

    /// Per record, its id's hash.
    private static func hashes(of ids: ByteArena) -> [UInt64] {
        let records = ids.count
        var hashes = [UInt64](repeating: 0, count: records)
        // SAFETY: i < records = ids.count, so each range lies in the arena's bytes; hash only reads the slice.
        ids.bytes.withUnsafeBytes { raw in
            for i in 0..<records {
                hashes[i] = IdHashes.hash(UnsafeRawBufferPointer(rebasing: raw[ids.range(i)]))
            }
        }
        return hashes
    }

    /// The group of a hash: its top `bits` bits.
    @inline(__always)
    private static func group(_ hash: UInt64, bits: Int) -> Int {
        bits == 0 ? 0 : Int(hash >> UInt64(64 - bits))
    }

    /// A stable counting sort of the records by group: `order[starts[g]..<starts[g + 1]]` are the
    /// records of group `g`, in record order.
    private static func groupOrder(_ hashes: [UInt64], groupBits: Int) -> (starts: [Int], order: [Int]) {
        let groups = 1 << groupBits
        var starts = [Int](repeating: 0, count: groups + 1)
        for hash in hashes {
            starts[group(hash, bits: groupBits) + 1] += 1
        }
        for g in 0..<groups {
            starts[g + 1] += starts[g]
        }
        var order = [Int](repeating: 0, count: hashes.count)
        var next = starts
        for i in 0..<hashes.count {
            let groupIndex = group(hashes[i], bits: groupBits)
            order[next[groupIndex]] = i
            next[groupIndex] += 1
        }
        return (starts, order)
    }

    /// Per record, the first record with its id, found group by group with one table reused.
    private static func firstRecords(_ ids: ByteArena, hashes: [UInt64], starts: [Int], order: [Int]) -> [Int] {
        let groups = starts.count - 1
        var largest = 0
        for g in 0..<groups {
            largest = Swift.max(largest, starts[g + 1] - starts[g])
        }
        var room = 16
        while room < 2 * largest { room <<= 1 }
        // per record, the first record with its id; a table slot holds a first record, or -1
        var first = [Int](repeating: 0, count: hashes.count)
        var slots = [Int](repeating: -1, count: room)
        let ends = ids.ends
        // SAFETY: no pointer escapes these closures; see the note inside for the bounds.
        ids.bytes.withUnsafeBytes { raw in
            hashes.withUnsafeBufferPointer { hash in
                order.withUnsafeBufferPointer { order in
                    first.withUnsafeMutableBufferPointer { first in
                        slots.withUnsafeMutableBufferPointer { slots in
                            ends.withUnsafeBufferPointer { ends in
                                // SAFETY: every index is a record (below the record count, the length of
                                // `hash`, `order`, `first` and `ends`) or a slot (below `size` <= `room`);
                                // a record's bytes are `ends[i - 1]..<ends[i]`, inside `raw`.
                                func bytes(_ i: Int) -> UnsafeRawBufferPointer {
                                    UnsafeRawBufferPointer(rebasing: raw[(i == 0 ? 0 : ends[i - 1])..<ends[i]])
                                }
                                for g in 0..<groups {
                                    let lo = starts[g]
                                    let hi = starts[g + 1]
                                    var size = 16
                                    while size < 2 * (hi - lo) { size <<= 1 }
                                    let mask = size - 1
                                    for k in lo..<hi {
                                        let record = order[k]
                                        // the low bits name the bucket, the high ones the group
                                        var slot = Int(truncatingIfNeeded: hash[record] >> 6) & mask
                                        while true {
                                            let held = slots[slot]
                                            if held < 0 {
                                                slots[slot] = record
                                                first[record] = record
                                                break
                                            }
                                            if hash[held] == hash[record] && IdCodes.equal(bytes(held), bytes(record)) {
                                                first[record] = held
                                                break
                                            }
                                            slot = (slot + 1) & mask
                                        }
                                    }
                                    for slot in 0..<size { slots[slot] = -1 }
                                }
                            }
                        }
                    }
                }
            }
        }
        return first
    }

    @inline(__always)
    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard let aStart = a.baseAddress, let bStart = b.baseAddress else { return true }
        // SAFETY: a.count == b.count (the guard), so memcmp reads a.count bytes inside each buffer.
        return memcmp(aStart, bStart, a.count) == 0
    }
}
