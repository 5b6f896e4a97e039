/// Event-id records: the id, its time and `updated`, and load order: what a load spills per
/// id-hash bucket and resolves. Stores of formats v1 and v2 kept them as their id index
/// (`ids/NN.gG.idx`); those files are still read (see ``IdHashes``), and format v3 keeps a
/// hash and a partition per event instead.
package struct IdRecords: Sendable {
    package var ids = ByteArena()
    package var time: [Int64] = []
    package var updated: [Int64] = []
    package var seq: [Int64] = []

    package var count: Int { ids.count }

    package mutating func append(id p: UnsafeRawBufferPointer, time t: Int64, updated u: Int64, seq s: Int64) {
        // SAFETY: append copies p.count bytes out of `p`, borrowed for this call.
        ids.append(p)
        time.append(t)
        updated.append(u)
        seq.append(s)
    }

    package mutating func append(from other: IdRecords, _ i: Int) {
        ids.append(from: other.ids, row: i)
        time.append(other.time[i])
        updated.append(other.updated[i])
        seq.append(other.seq[i])
    }

    package func serialized() -> [UInt8] {
        var writer = ByteWriter()
        writer.u32(UInt32(count))
        writer.raw(ids.ends.map { UInt32($0) })
        writer.blob(ids.bytes)
        writer.raw(time)
        writer.raw(updated)
        writer.raw(seq)
        return writer.bytes
    }

    package init() {}

    package init(serialized p: UnsafeRawBufferPointer) throws(QuakeError) {
        // SAFETY: every read goes through ByteReader; the ends are checked to ascend up to ids.bytes.count, so
        // every later range(i) lies in the bytes.
        var reader = ByteReader(p)
        let count = Int(try reader.u32())
        ids.ends = try reader.raw(count, as: UInt32.self).map { Int($0) }
        ids.bytes = try reader.blob()
        guard ids.ends.last ?? 0 == ids.bytes.count else { throw .corrupt("id records: lengths do not add up") }
        var previous = 0
        for e in ids.ends {
            guard e >= previous else { throw .corrupt("id records: an id ends before it starts") }
            previous = e
        }
        time = try reader.raw(count, as: Int64.self)
        updated = try reader.raw(count, as: Int64.self)
        seq = try reader.raw(count, as: Int64.self)
    }

    /// The bucket of an id.
    // SAFETY: hash reads p.count bytes of `p`, borrowed for this call.
    package static func bucket(_ p: UnsafeRawBufferPointer) -> Int { IdHashes.bucket(IdHashes.hash(p)) }

    // MARK: bucket files: [zstd frame][raw length u32][checksum u64][magic]

    /// Format v1 bucket files: the spill layout (with load order) under zstd. Still read, since
    /// `migrate` keeps a v1 store's id index as it is.
    package static let magicV1: [UInt8] = Array("QKIDX001".utf8)
    /// Format v2 bucket files: records in time order; ids as lengths and bytes, times and
    /// `updated` through ``ForIntegerCodec``; zstd over all of it. No load order: it is only
    /// meaningful within one load.
    package static let magic: [UInt8] = Array("QKIDX002".utf8)

    private func compactPayload(_ rows: [Int]?) -> [UInt8] {
        let order = (rows ?? Array(0..<count)).sorted {
            time[$0] != time[$1] ? time[$0] < time[$1] : ids.compare($0, ids, $1) < 0
        }
        let count = order.count
        let sortedIds = ids.gather(order)
        var out: [UInt8] = []
        // SAFETY: each closure copies the 4 bytes of a local value; the pointer does not escape it.
        withUnsafeBytes(of: UInt32(count).littleEndian) { out.append(contentsOf: $0) }
        let text = TextPayload.encode(sortedIds, rows: 0..<count)
        withUnsafeBytes(of: UInt32(text.count).littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: text)
        for column in [order.map { time[$0] }, order.map { updated[$0] }] {
            var chunk: [UInt8] = []
            _ = ForIntegerCodec.encode(column, rows: 0..<count, into: &chunk)
            withUnsafeBytes(of: UInt32(chunk.count).littleEndian) { out.append(contentsOf: $0) }
            out.append(contentsOf: chunk)
        }
        return out
    }

    private init(compact p: UnsafeRawBufferPointer) throws(QuakeError) {
        // SAFETY: reads go through ByteReader; part() slices `p` only after need(len).
        var reader = ByteReader(p)
        let count = Int(try reader.u32())
        guard count <= p.count else { throw .corrupt("id records: count \(count)") }
        func part() throws(QuakeError) -> UnsafeRawBufferPointer {
            let len = Int(try reader.u32())
            try reader.need(len)
            defer { reader.pos += len }
            return UnsafeRawBufferPointer(rebasing: p[reader.pos..<(reader.pos + len)])
        }
        ids = try TextPayload.decode(try part(), rows: count)
        for k in 0..<2 {
            guard case .ints(let values) = try ForIntegerCodec.decode(try part(), count: count, rows: 0..<count,
                                                                      as: .stored) else {
                throw .corrupt("id records: times")
            }
            if k == 0 { time = values } else { updated = values }
        }
        seq = Array(repeating: Int64.min, count: count)
        guard reader.remaining == 0 else { throw .corrupt("id records: \(reader.remaining) stray bytes") }
    }

    /// A format v2 bucket file of these records, or of the records at `rows` only. Stores no
    /// longer write these; tests build v2 stores with it.
    package func fileBytes(rows: [Int]? = nil) -> [UInt8] {
        let payload = compactPayload(rows)
        var writer = ByteWriter()
        writer.bytes = Zstd.compress(payload, level: 3)
        let sum = Checksum.hash(writer.bytes)
        writer.u32(UInt32(payload.count))
        writer.u64(sum)
        writer.bytes.append(contentsOf: IdRecords.magic)
        return writer.bytes
    }

    package static func read(path: String) throws(QuakeError) -> IdRecords {
        let file = try MappedFile(path: path)
        // SAFETY: decode copies what it keeps out of the mapping, and withExtendedLifetime keeps `file` (the
        // mapping's owner) alive until it returns.
        return try withExtendedLifetime(file) { () throws(QuakeError) in try decode(file.bytes, path: path) }
    }

    /// Checks and decodes the bytes of a bucket file; `path` names it in errors.
    package static func decode(_ b: UnsafeRawBufferPointer, path: String) throws(QuakeError) -> IdRecords {
        guard b.count >= 20 else { throw .corrupt(path, "not an id index file") }
        // SAFETY: b.count >= 20 is checked before the tail and the frame slices, which lie in `b`.
        let tail = Array(b[(b.count - 8)...])
        guard tail == magic || tail == magicV1 else { throw .corrupt(path, "not an id index file") }
        var reader = ByteReader(b, at: b.count - 20)
        let rawLen = Int(try reader.u32())
        let sum = try reader.u64()
        let frame = UnsafeRawBufferPointer(rebasing: b[0..<(b.count - 20)])
        guard Checksum.hash(frame) == sum else { throw .corrupt(path, "checksum mismatch") }
        let payload = try Zstd.decompress(frame, expectedSize: rawLen)
        // SAFETY: `p` is used only inside the closure; both decoders bounds-check through ByteReader and copy.
        let res = payload.withUnsafeBytes { p in
            Result { () throws(QuakeError) in tail == magic ? try IdRecords(compact: p) : try IdRecords(serialized: p) }
        }
        do { return try res.get() } catch { throw .corrupt(path, "\(error)") }
    }
}
