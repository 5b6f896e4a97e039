import QuakeSupport

/// Bucket files: v4 written (``IdBucketFile``), v4 and v3 read whole, v1 and v2 converted.
extension IdHashes {
    /// The bucket file of these entries (which must be sorted), in format v4 (``IdBucketFile``).
    package func fileBytes() -> [UInt8] { IdBucketFile.encode(self) }

    /// The name of bucket `bucket`'s file written at `generation`: `NN.gN.idx`.
    package static func fileName(bucket: Int, generation: Int) -> String {
        (bucket >= 0 && bucket < 10 ? "0" : "") + "\(bucket).g\(generation).idx"
    }

    // v3: [u32 count][u8 bits][u32 len][keys, FOR][u32 len][ordinals, FOR][u32 payload][u64 sum][magic]

    /// The v3 file of these entries, as builds before hints wrote it (for tests of old stores).
    package func fileBytesV3() -> [UInt8] {
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
        writer.bytes.append(contentsOf: IdHashes.magicV3)
        return writer.bytes
    }

    /// Reads the bucket file at `path` for bucket `b`: a v4 or v3 file as it is (v3 entries with
    /// ``unknownHint``), a v1 or v2 file (ids in full) converted, with `partitioning` placing each
    /// id's time.
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
        if IdBucketFile.isV4(b) { return try decodeV4(b, path: path) }
        // SAFETY: `&&` reads b[(b.count - 8)...] only once b.count >= 20; the payload slice has len == b.count - 20.
        guard b.count >= 20, Array(b[(b.count - 8)...]) == magicV3 else {
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
        hints = [UInt32](repeating: IdHashes.unknownHint, count: count)
    }

    /// Every block of a v4 file, checked, in one list checked for order across blocks.
    private static func decodeV4(_ bytes: UnsafeRawBufferPointer, path: String) throws(QuakeError) -> IdHashes {
        let file = try IdBucketFile(bytes, path: path)
        var out = IdHashes(bits: file.bits)
        out.keys.reserveCapacity(file.count)
        out.ordinals.reserveCapacity(file.count)
        out.hints.reserveCapacity(file.count)
        for blockIndex in file.blocks.indices {
            let entries = try file.entries(ofBlock: blockIndex)
            if let lastKey = out.keys.last, let lastOrdinal = out.ordinals.last, let lastHint = out.hints.last,
               let firstKey = entries.keys.first, let firstOrdinal = entries.ordinals.first,
               let firstHint = entries.hints.first {
                let ordered = lastKey != firstKey ? lastKey < firstKey
                    : lastOrdinal != firstOrdinal ? lastOrdinal < firstOrdinal : lastHint <= firstHint
                guard ordered else { throw .corrupt(path, "id index block \(blockIndex): entries out of order") }
            }
            out.keys.append(contentsOf: entries.keys)
            out.ordinals.append(contentsOf: entries.ordinals)
            out.hints.append(contentsOf: entries.hints)
        }
        return out
    }
}
