/// Event-id records: the id, its time and `updated`, and load order. The store keeps one
/// sorted file of these per id-hash bucket (`ids/NN.gG.idx`) so a load finds an event's
/// stored version, and so its partition, without scanning the store.
struct IdRecords: Sendable {
    var ids = ByteArena()
    var time: [Int64] = []
    var updated: [Int64] = []
    var seq: [Int64] = []

    var count: Int { ids.count }

    mutating func append(id p: UnsafeRawBufferPointer, time t: Int64, updated u: Int64, seq s: Int64) {
        ids.append(p)
        time.append(t)
        updated.append(u)
        seq.append(s)
    }

    mutating func append(from other: IdRecords, _ i: Int) {
        ids.append(from: other.ids, row: i)
        time.append(other.time[i])
        updated.append(other.updated[i])
        seq.append(other.seq[i])
    }

    func serialized() -> [UInt8] {
        var w = ByteWriter()
        w.u32(UInt32(count))
        w.raw(ids.ends.map { UInt32($0) })
        w.blob(ids.bytes)
        w.raw(time)
        w.raw(updated)
        w.raw(seq)
        return w.bytes
    }

    init() {}

    init(serialized p: UnsafeRawBufferPointer) throws(StoreError) {
        var r = ByteReader(p)
        let n = Int(try r.u32())
        ids.ends = try r.raw(n, as: UInt32.self).map { Int($0) }
        ids.bytes = try r.blob()
        guard ids.ends.last ?? 0 == ids.bytes.count else { throw .corrupt("id records: lengths do not add up") }
        time = try r.raw(n, as: Int64.self)
        updated = try r.raw(n, as: Int64.self)
        seq = try r.raw(n, as: Int64.self)
    }

    /// The bucket of an id.
    static func bucket(_ p: UnsafeRawBufferPointer) -> Int {
        Int(Checksum.hash(p, seed: 0x51_7CC1_B727_220A) % UInt64(Manifest.idBucketCount))
    }

    // MARK: bucket files: [zstd frame][raw length u32][checksum u64][magic]

    static let magic: [UInt8] = Array("QKIDX001".utf8)

    func fileBytes() -> [UInt8] {
        let payload = serialized()
        var w = ByteWriter()
        w.bytes = Zstd.compress(payload, level: 3)
        let sum = Checksum.hash(w.bytes)
        w.u32(UInt32(payload.count))
        w.u64(sum)
        w.bytes.append(contentsOf: IdRecords.magic)
        return w.bytes
    }

    static func read(path: String) throws(StoreError) -> IdRecords {
        let f = try MappedFile(path: path)
        let b = f.bytes
        guard b.count >= 20, Array(b[(b.count - 8)...]) == magic else { throw .corrupt("\(path): not an id index file") }
        var r = ByteReader(b, at: b.count - 20)
        let rawLen = Int(try r.u32())
        let sum = try r.u64()
        let frame = UnsafeRawBufferPointer(rebasing: b[0..<(b.count - 20)])
        guard Checksum.hash(frame) == sum else { throw .corrupt("\(path): checksum mismatch") }
        let payload = try Zstd.decompress(frame, expectedSize: rawLen)
        let res = payload.withUnsafeBytes { p in Result { () throws(StoreError) in try IdRecords(serialized: p) } }
        do { return try res.get() } catch { throw .corrupt("\(path): \(error)") }
    }
}
