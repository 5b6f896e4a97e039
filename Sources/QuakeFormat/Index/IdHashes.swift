import QuakeSupport
/// One id-hash bucket of the id index (format v4, `QKIDX004`; v3 files still read): per stored
/// event a key cut from the 64-bit hash of its id, the ordinal of the partition that holds it and
/// the minute of the partition its time falls in (the *hint*), sorted by key, ordinal, then hint.
/// A point read goes from the hint straight to the granules of that minute (see
/// ``IdBucketFile``). It repeats no id text: a load that meets a stored key reads the named partition
/// to find the event's id, time and `updated` exactly, so two ids that share a key are never
/// confused (see `ResolvePass`).
///
/// The low 6 bits of the hash pick the bucket; the key is the next `bits` bits above them
/// (``defaultBits`` in files the store writes). A file records its own `bits`, 1 to
/// ``maxBits``: fewer bits make shared keys common, which tests use to drive the exact path.
///
/// Why 40 bits: a key only has to make a false meet rare, since a met key is always settled
/// on the stored id text. Sorted keys are packed as deltas, about `bits - log2(n)` bits each,
/// so 40 bits cost 4 bytes an event where 58 cost 6.4. At 1.5 M events a bucket (100 M in the
/// store), a new id meets a stored key by chance once in 700 000 lookups.
package struct IdHashes: Sendable, Equatable {
    /// Sorted keys (then ordinals within a key).
    package var keys: [UInt64] = []
    /// Partition ordinals (see ``Partitioning/ordinal(_:)``), one per key.
    package var ordinals: [Int] = []
    /// Per entry, 1 + the minute of its partition the event's time falls in, or
    /// ``unknownHint`` (entries read from v3 files, until a load moves them).
    package var hints: [UInt32] = []
    /// Hash bits a key keeps, 1...``maxBits``.
    package var bits: Int

    /// Key bits of the files a load writes.
    package static let defaultBits = 40
    /// Key bits a file may keep: all 58 bits of the hash above the bucket's 6.
    package static let maxBits = 58
    /// The magic of the files this build writes (blocks with hints).
    package static let magic: [UInt8] = Array("QKIDX004".utf8)
    /// The magic of v3 files (one run of keys and ordinals, no hints), still read.
    package static let magicV3: [UInt8] = Array("QKIDX003".utf8)
    /// The hint of an entry whose minute is not known.
    package static let unknownHint: UInt32 = 0

    package var count: Int { keys.count }

    package init(bits: Int = IdHashes.defaultBits) { self.bits = bits }

    /// The 64-bit hash an id's bucket and key come from.
    @inline(__always)
    package static func hash(_ p: UnsafeRawBufferPointer) -> UInt64 {
        // SAFETY: hash reads p.count bytes of `p`, borrowed for this call.
        Checksum.hash(p, seed: 0x51_7CC1_B727_220A)
    }

    /// The bucket of a hash.
    @inline(__always)
    package static func bucket(_ h: UInt64) -> Int { Int(h % UInt64(Manifest.idBucketCount)) }

    /// The key of a hash at `bits` bits.
    @inline(__always)
    package static func key(_ h: UInt64, bits: Int) -> UInt64 { (h >> 6) >> UInt64(maxBits - bits) }

    /// The key of an id in this file.
    @inline(__always)
    package func key(_ h: UInt64) -> UInt64 { IdHashes.key(h, bits: bits) }

    /// The hint of an event at `time` in the partition that starts at `partitionStart`: one more
    /// than the minute of the partition it falls in.
    @inline(__always)
    package static func hint(time: Int64, partitionStart: Int64) -> UInt32 {
        let minute = (time &- partitionStart) / 60_000
        return UInt32(clamping: Swift.max(minute, -1) + 1)
    }

    /// The times an entry of hint `hint` in the partition starting at `partitionStart` may hold;
    /// nil for ``unknownHint``.
    package static func window(hint: UInt32, partitionStart: Int64) -> Range<Int64>? {
        guard hint != unknownHint else { return nil }
        let start = partitionStart &+ (Int64(hint) - 1) &* 60_000
        return start..<(start &+ 60_000)
    }

    package mutating func append(key k: UInt64, ordinal o: Int, hint h: UInt32 = IdHashes.unknownHint) {
        keys.append(k)
        ordinals.append(o)
        hints.append(h)
    }

    /// Whether entry `i` sorts before entry `j`: by key, ordinal, then hint.
    @inline(__always)
    private func precedes(_ i: Int, _ j: Int) -> Bool {
        if keys[i] != keys[j] { return keys[i] < keys[j] }
        if ordinals[i] != ordinals[j] { return ordinals[i] < ordinals[j] }
        return hints[i] < hints[j]
    }

    /// Whether entry `i` sorts before entry `j` of `other`.
    @inline(__always)
    package func precedes(_ i: Int, _ other: IdHashes, _ j: Int) -> Bool {
        if keys[i] != other.keys[j] { return keys[i] < other.keys[j] }
        if ordinals[i] != other.ordinals[j] { return ordinals[i] < other.ordinals[j] }
        return hints[i] < other.hints[j]
    }

    /// Whether entry `i` equals entry `j` of `other`.
    @inline(__always)
    package func same(_ i: Int, _ other: IdHashes, _ j: Int) -> Bool {
        keys[i] == other.keys[j] && ordinals[i] == other.ordinals[j] && hints[i] == other.hints[j]
    }

    /// Whether the (sorted) entries hold exactly this entry.
    /// - Complexity: O(log n) and the entries sharing `key`.
    package func contains(_ key: UInt64, _ ordinal: Int, _ hint: UInt32) -> Bool {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        while low < keys.count, keys[low] == key {
            if ordinals[low] == ordinal && hints[low] == hint { return true }
            low += 1
        }
        return false
    }

    /// Puts the entries in key, ordinal, then hint order.
    package mutating func sort() {
        var sorted = true
        for i in keys.indices.dropFirst() where precedes(i, i - 1) {
            sorted = false
            break
        }
        if sorted { return }
        // keys, ordinals (from the least) and hints packed into one word, when all fit (the widths
        // are measured)
        let (lo, hi) = ordinals.reduce((Int.max, Int.min)) { (min($0.0, $1), max($0.1, $1)) }
        let ordinalBits = Int.bitWidth - (hi &- lo).leadingZeroBitCount
        let keyBits = UInt64.bitWidth - (keys.max() ?? 0).leadingZeroBitCount
        let hintBits = UInt32.bitWidth - (hints.max() ?? 0).leadingZeroBitCount
        if hi &- lo >= 0, keyBits + ordinalBits + hintBits <= 64 {
            let ordinalShift = UInt64(hintBits)
            let keyShift = UInt64(ordinalBits + hintBits)
            var packed = [UInt64](uninitializedCount: keys.count) { buf, n in
                for i in keys.indices {
                    buf[i] = keys[i] << keyShift | UInt64(ordinals[i] - lo) << ordinalShift | UInt64(hints[i])
                }
                n = keys.count
            }
            RadixSort.sort(&packed, bits: keyBits + ordinalBits + hintBits)
            let ordinalMask = ordinalBits == 0 ? 0 : (UInt64(1) << UInt64(ordinalBits)) - 1
            let hintMask = hintBits == 0 ? 0 : (UInt64(1) << UInt64(hintBits)) - 1
            for i in packed.indices {
                keys[i] = keyShift == 64 ? 0 : packed[i] >> keyShift
                ordinals[i] = lo + Int((packed[i] >> ordinalShift) & ordinalMask)
                hints[i] = UInt32(truncatingIfNeeded: packed[i] & hintMask)
            }
            return
        }
        struct Entry: Comparable {
            let key: UInt64
            let ordinal: Int
            let hint: UInt32
            static func < (a: Entry, b: Entry) -> Bool {
                if a.key != b.key { return a.key < b.key }
                return a.ordinal != b.ordinal ? a.ordinal < b.ordinal : a.hint < b.hint
            }
        }
        var entries = [Entry]()
        entries.reserveCapacity(keys.count)
        for i in keys.indices { entries.append(Entry(key: keys[i], ordinal: ordinals[i], hint: hints[i])) }
        entries.sort()
        for i in entries.indices {
            keys[i] = entries[i].key
            ordinals[i] = entries[i].ordinal
            hints[i] = entries[i].hint
        }
    }

    /// A lookup table over sorted keys: the first entry of each value of the top `shift` bits,
    /// so a lookup scans the two or three entries that share them.
    package struct Directory: Sendable {
        let starts: [Int]
        let shift: UInt64

        package init(_ h: IdHashes) {
            let bits = min(16, h.bits, max(1, (Int.bitWidth - h.count.leadingZeroBitCount)))
            shift = UInt64(h.bits - bits)
            let slots = 1 << bits
            let keyShift = shift
            var starts = [Int](repeating: 0, count: slots + 1)
            // one pass over the sorted keys: each slot starts at the first key at or above it
            // (a key past the last slot, which a sound file never holds, ends the table as before)
            starts.withUnsafeMutableBufferPointer { startBuffer in
                h.keys.withUnsafeBufferPointer { keyBuffer in
                    // SAFETY: `slot` stays within 0...slots, the table's bounds; `index` within the keys.
                    var slot = 0
                    for index in 0..<keyBuffer.count {
                        let keySlot = Int(Swift.min(keyBuffer[index] >> keyShift, UInt64(slots)))
                        while slot <= keySlot && slot < slots {
                            startBuffer[slot] = index
                            slot += 1
                        }
                    }
                    while slot < slots {
                        startBuffer[slot] = keyBuffer.count
                        slot += 1
                    }
                    startBuffer[slots] = keyBuffer.count
                }
            }
            self.starts = starts
        }

        /// The entries of `h` (the table's keys) whose key is `k`.
        @inline(__always)
        package func entries(_ k: UInt64, in h: IdHashes) -> Range<Int> {
            let slot = Int(truncatingIfNeeded: k >> shift)
            guard slot + 1 < starts.count else { return 0..<0 }
            var lo = starts[slot]
            let end = starts[slot + 1]
            while lo < end && h.keys[lo] < k { lo += 1 }
            var hi = lo
            while hi < end && h.keys[hi] == k { hi += 1 }
            return lo..<hi
        }
    }

    /// The entries of full id records (v1 and v2 files, and tests).
    package static func converting(_ recs: IdRecords, bucket b: Int, partitioning: Partitioning,
                                   bits: Int = defaultBits) throws(QuakeError) -> IdHashes {
        var out = IdHashes(bits: bits)
        out.keys.reserveCapacity(recs.count)
        out.ordinals.reserveCapacity(recs.count)
        // SAFETY: recs.ids ends ascend up to its bytes (IdRecords checks on decode), so each range lies in
        // `raw`; the pointer does not outlive the closure (hash only reads).
        let problem: String? = recs.ids.bytes.withUnsafeBytes { raw in
            for i in 0..<recs.count {
                let hashValue = hash(UnsafeRawBufferPointer(rebasing: raw[recs.ids.range(i)]))
                if bucket(hashValue) != b { return "an id in the wrong bucket" }
                let time = recs.time[i]
                guard Timestamp.storable.contains(time) else { return "a time out of range" }
                let ordinal = partitioning.ordinal(time)
                let hint = IdHashes.hint(time: time, partitionStart: partitioning.start(ordinal: ordinal))
                out.append(key: key(hashValue, bits: bits), ordinal: ordinal, hint: hint)
            }
            return nil
        }
        if let problem { throw .corrupt(problem) }
        out.sort()
        return out
    }
}
