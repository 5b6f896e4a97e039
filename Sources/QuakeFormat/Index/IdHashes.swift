import QuakeSupport
/// One id-hash bucket of the id index (format v3, `QKIDX003`): per stored event a key cut from
/// the 64-bit hash of its id and the ordinal of the partition that holds it, sorted by key then
/// ordinal. It repeats no id text: a load that meets a stored key reads the named partition
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
    /// Hash bits a key keeps, 1...``maxBits``.
    package var bits: Int

    /// Key bits of the files a load writes.
    package static let defaultBits = 40
    /// Key bits a file may keep: all 58 bits of the hash above the bucket's 6.
    package static let maxBits = 58
    package static let magic: [UInt8] = Array("QKIDX003".utf8)

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

    package mutating func append(key k: UInt64, ordinal o: Int) {
        keys.append(k)
        ordinals.append(o)
    }

    /// Puts the entries in key, then ordinal, order.
    package mutating func sort() {
        var sorted = true
        for i in keys.indices.dropFirst() where keys[i] < keys[i - 1]
            || (keys[i] == keys[i - 1] && ordinals[i] < ordinals[i - 1]) {
            sorted = false
            break
        }
        if sorted { return }
        // keys and ordinals packed into one word, when both fit (the widths are measured)
        let (lo, hi) = ordinals.reduce((Int.max, Int.min)) { (min($0.0, $1), max($0.1, $1)) }
        let ordinalBits = Int.bitWidth - hi.leadingZeroBitCount
        let keyBits = UInt64.bitWidth - (keys.max() ?? 0).leadingZeroBitCount
        if lo >= 0, keyBits + ordinalBits <= 64 {
            var packed = [UInt64](uninitializedCount: keys.count) { buf, n in
                for i in keys.indices { buf[i] = keys[i] << UInt64(ordinalBits) | UInt64(ordinals[i]) }
                n = keys.count
            }
            RadixSort.sort(&packed, bits: keyBits + ordinalBits)
            let low = ordinalBits == 0 ? 0 : (UInt64(1) << UInt64(ordinalBits)) - 1
            for i in packed.indices {
                keys[i] = packed[i] >> UInt64(ordinalBits)
                ordinals[i] = Int(packed[i] & low)
            }
            return
        }
        struct Pair: Comparable {
            let key: UInt64
            let ordinal: Int
            static func < (a: Pair, b: Pair) -> Bool { a.key != b.key ? a.key < b.key : a.ordinal < b.ordinal }
        }
        var pairs = [Pair]()
        pairs.reserveCapacity(keys.count)
        for i in keys.indices { pairs.append(Pair(key: keys[i], ordinal: ordinals[i])) }
        pairs.sort()
        for i in pairs.indices {
            keys[i] = pairs[i].key
            ordinals[i] = pairs[i].ordinal
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

    // MARK: file: [u32 count][u8 bits][u32 len][keys, FOR][u32 len][ordinals, FOR][u32 payload][u64 sum][magic]

    /// The bucket file of these entries (which must be sorted).
    package func fileBytes() -> [UInt8] {
        var out: [UInt8] = []
        // SAFETY: the closure copies the 4 bytes of a local value; the pointer does not escape it.
        withUnsafeBytes(of: UInt32(count).littleEndian) { out.append(contentsOf: $0) }
        out.append(UInt8(bits))
        for column in [keys.map { Int64(bitPattern: $0) }, ordinals.map { Int64($0) }] {
            var chunk: [UInt8] = []
            if count > 0 { _ = ForIntegerCodec.encode(column, rows: 0..<count, into: &chunk) }
            // SAFETY: the closure copies the 4 bytes of a local value; the pointer does not escape it.
            withUnsafeBytes(of: UInt32(chunk.count).littleEndian) { out.append(contentsOf: $0) }
            out.append(contentsOf: chunk)
        }
        var writer = ByteWriter()
        writer.bytes = out
        let sum = Checksum.hash(out)
        writer.u32(UInt32(out.count))
        writer.u64(sum)
        writer.bytes.append(contentsOf: IdHashes.magic)
        return writer.bytes
    }

    /// Reads the bucket file at `path` for bucket `b`: a v3 file as it is, a v1 or v2 file (ids
    /// in full) converted, with `partitioning` placing each id's time.
    package static func read(path: String, bucket b: Int, partitioning: Partitioning) throws(QuakeError) -> IdHashes {
        let file = try MappedFile(path: path)
        // SAFETY: withExtendedLifetime keeps the mapping alive while decode reads file.bytes; decode copies.
        return try withExtendedLifetime(file) { () throws(QuakeError) in
            try decode(file.bytes, bucket: b, partitioning: partitioning, path: path)
        }
    }

    /// Checks and decodes a bucket file's bytes; `path` names it in errors.
    package static func decode(_ b: UnsafeRawBufferPointer, bucket: Int, partitioning: Partitioning,
                               path: String) throws(QuakeError) -> IdHashes {
        // SAFETY: `&&` reads b[(b.count - 8)...] only once b.count >= 20; the payload slice has len == b.count - 20.
        guard b.count >= 20, Array(b[(b.count - 8)...]) == magic else {
            let old = try IdRecords.decode(b, path: path)
            do { return try converting(old, bucket: bucket, partitioning: partitioning) } catch {
                throw .corrupt(path, "\(error)")
            }
        }
        var reader = ByteReader(b, at: b.count - 20)
        let len = Int(try reader.u32())
        let sum = try reader.u64()
        guard len == b.count - 20 else { throw .corrupt(path, "id index length \(len) of \(b.count - 20)") }
        let payload = UnsafeRawBufferPointer(rebasing: b[0..<len])
        guard Checksum.hash(payload) == sum else { throw .corrupt(path, "checksum mismatch") }
        do { return try IdHashes(payload: payload, bucket: bucket) } catch { throw .corrupt(path, "\(error)") }
    }

    private init(payload p: UnsafeRawBufferPointer, bucket: Int) throws(QuakeError) {
        // SAFETY: reads go through ByteReader; each column slice follows need(len).
        var reader = ByteReader(p)
        let count = Int(try reader.u32())
        guard count <= p.count * 8 else { throw .corrupt("id hashes: count \(count)") }
        bits = Int(try reader.u8())
        guard (1...IdHashes.maxBits).contains(bits) else { throw .corrupt("id hashes: \(bits) key bits") }
        var columns: [[Int64]] = []
        for _ in 0..<2 {
            let len = Int(try reader.u32())
            try reader.need(len)
            let part = UnsafeRawBufferPointer(rebasing: p[reader.pos..<(reader.pos + len)])
            reader.pos += len
            if count == 0 {
                guard len == 0 else { throw .corrupt("id hashes: bytes for no entries") }
                continue
            }
            guard case .ints(let values) = try ForIntegerCodec.decode(part, count: count, rows: 0..<count, as: .stored),
                  values.count == count else { throw .corrupt("id hashes: a column") }
            columns.append(values)
        }
        guard reader.remaining == 0 else { throw .corrupt("id hashes: \(reader.remaining) stray bytes") }
        guard count > 0 else { return }
        // whole columns converted at once, then checked in one pass: a load reads every bucket a
        // batch of ids hashes to, and this loop ran an append and a check per entry
        let decodedKeys = columns[0].map { UInt64(bitPattern: $0) }
        let decodedOrdinals = columns[1].map { Int($0) }
        let limit = UInt64(1) << UInt64(bits)
        let problem: String? = decodedKeys.withUnsafeBufferPointer { keyBuffer in
            decodedOrdinals.withUnsafeBufferPointer { ordinalBuffer in
                // SAFETY: both buffers hold count entries (the decoder gave count of each), read below count only.
                if keyBuffer[0] >= limit { return "key \(keyBuffer[0]) over \(bits) bits" }
                for index in 1..<count {
                    let key = keyBuffer[index]
                    let previous = keyBuffer[index - 1]
                    if key >= limit { return "key \(key) over \(bits) bits" }
                    if key < previous || (key == previous && ordinalBuffer[index] < ordinalBuffer[index - 1]) {
                        return "entries out of order"
                    }
                }
                return nil
            }
        }
        if let problem { throw .corrupt("id hashes: " + problem) }
        keys = decodedKeys
        ordinals = decodedOrdinals
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
                guard Timestamp.storable.contains(recs.time[i]) else { return "a time out of range" }
                out.append(key: key(hashValue, bits: bits), ordinal: partitioning.ordinal(recs.time[i]))
            }
            return nil
        }
        if let problem { throw .corrupt(problem) }
        out.sort()
        return out
    }
}
