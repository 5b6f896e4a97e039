/// Zone map and location of one block of a column file.
public struct BlockInfo: Sendable, Equatable {
    public var offset: UInt64
    public var compressedLength: UInt32
    public var rawLength: UInt32
    public var rows: UInt32
    public var nulls: UInt32
    /// Smallest non-null value: `Int64` for timestamps, `Double` bit pattern for decimals.
    public var min: Int64
    public var max: Int64
    public var checksum: UInt64

    static let size = 48

    /// Zone-map bounds as doubles (decimal columns).
    public var minDouble: Double { Double(bitPattern: UInt64(bitPattern: min)) }
    public var maxDouble: Double { Double(bitPattern: UInt64(bitPattern: max)) }
}

/// Column file layout: `[zstd frame per block][footer: BlockInfo * n][trailer]`.
/// Trailer: block count u32, column kind u8, version u8, 2 pad bytes, footer checksum u64,
/// magic `QKCOL001`. Every block carries a checksum of its compressed bytes, and each zstd
/// frame its own content checksum.
enum ColumnFile {
    static let magic: [UInt8] = Array("QKCOL001".utf8)
    static let trailerSize = 24
    static let version: UInt8 = 1

    struct Written {
        var bytesOnDisk: Int
        var rawBytes: Int
        var blocks: [BlockInfo]
    }

    /// Encodes column `c` of `batch` in blocks of `blockRows` rows.
    static func encode(_ c: Column, of batch: RowBatch, blockRows: Int, level: Int32 = 3) -> (bytes: [UInt8], info: Written) {
        var out: [UInt8] = []
        var blocks: [BlockInfo] = []
        var raw = 0
        var start = 0
        repeat {
            let end = Swift.min(batch.count, start + blockRows)
            let rows = start..<end
            let payload: [UInt8]
            var lo: Int64 = 0, hi: Int64 = 0, nulls = 0
            switch c.kind {
            case .timestamp, .decimal:
                let v = batch.ints[c.rawValue][rows]
                payload = IntegerCodec.encode(v, delta: c == .time)
                if c.kind == .timestamp {
                    var mn = Int64.max, mx = Int64.min
                    for x in v { if x == RowBatch.null { nulls += 1 } else { mn = Swift.min(mn, x); mx = Swift.max(mx, x) } }
                    (lo, hi) = nulls == v.count ? (0, 0) : (mn, mx)
                } else {
                    var mn = Double.infinity, mx = -Double.infinity
                    for x in v {
                        if x == RowBatch.null { nulls += 1; continue }
                        let d = ScaledDecimal.double(x)
                        mn = Swift.min(mn, d); mx = Swift.max(mx, d)
                    }
                    if nulls == v.count { mn = .nan; mx = .nan }
                    lo = Int64(bitPattern: mn.bitPattern); hi = Int64(bitPattern: mx.bitPattern)
                }
            case .category:
                payload = CategoryCodec.encode(batch.text[c.rawValue], rows: rows)
                nulls = rows.reduce(0) { $0 + (batch.text[c.rawValue].isNull($1) ? 1 : 0) }
            case .text:
                payload = TextCodec.encode(batch.text[c.rawValue], rows: rows)
                nulls = rows.reduce(0) { $0 + (batch.text[c.rawValue].isNull($1) ? 1 : 0) }
            case .place:
                payload = PlaceCodec.encode(batch.text[c.rawValue], rows: rows)
                nulls = rows.reduce(0) { $0 + (batch.text[c.rawValue].isNull($1) ? 1 : 0) }
            }
            let frame = Zstd.compress(payload, level: level)
            blocks.append(BlockInfo(offset: UInt64(out.count), compressedLength: UInt32(frame.count), rawLength: UInt32(payload.count),
                                    rows: UInt32(rows.count), nulls: UInt32(nulls), min: lo, max: hi, checksum: Checksum.hash(frame)))
            raw += payload.count
            out.append(contentsOf: frame)
            start = end
        } while start < batch.count
        var w = ByteWriter()
        for b in blocks {
            w.u64(b.offset); w.u32(b.compressedLength); w.u32(b.rawLength); w.u32(b.rows); w.u32(b.nulls)
            w.i64(b.min); w.i64(b.max); w.u64(b.checksum)
        }
        let footerSum = Checksum.hash(w.bytes)
        w.u32(UInt32(blocks.count)); w.u8(UInt8(c.rawValue)); w.u8(version); w.u8(0); w.u8(0)
        w.u64(footerSum)
        w.bytes.append(contentsOf: magic)
        out.append(contentsOf: w.bytes)
        return (out, Written(bytesOnDisk: out.count, rawBytes: raw, blocks: blocks))
    }

    /// Reads and checks the footer of a mapped column file.
    static func footer(_ f: MappedFile, column: Column) throws(StoreError) -> [BlockInfo] {
        let b = f.bytes
        guard b.count >= trailerSize else { throw .corrupt("\(f.path): file too short for a column file") }
        var r = ByteReader(b, at: b.count - trailerSize)
        let n = Int(try r.u32())
        let kind = try r.u8()
        let ver = try r.u8()
        r.pos += 2
        let sum = try r.u64()
        guard Array(b[(b.count - 8)...]) == magic else { throw .corrupt("\(f.path): bad trailer magic") }
        guard ver == version else { throw .unsupported("\(f.path): column file version \(ver)") }
        guard Int(kind) == column.rawValue else { throw .corrupt("\(f.path): trailer names column \(kind), expected \(column)") }
        let footerStart = b.count - trailerSize - n * BlockInfo.size
        guard n >= 1, footerStart >= 0 else { throw .corrupt("\(f.path): block count \(n)") }
        guard Checksum.hash(UnsafeRawBufferPointer(rebasing: b[footerStart..<(b.count - trailerSize)])) == sum else {
            throw .corrupt("\(f.path): footer checksum mismatch")
        }
        r = ByteReader(b, at: footerStart)
        var blocks: [BlockInfo] = []
        for k in 0..<n {
            let info = BlockInfo(offset: try r.u64(), compressedLength: try r.u32(), rawLength: try r.u32(), rows: try r.u32(),
                                 nulls: try r.u32(), min: try r.i64(), max: try r.i64(), checksum: try r.u64())
            guard Int(info.offset) + Int(info.compressedLength) <= footerStart else {
                throw .corrupt("\(f.path) block \(k): extends past the data area")
            }
            blocks.append(info)
        }
        return blocks
    }

    /// Decompresses block `k`. Queries rely on the zstd frame's own content checksum (checked
    /// by every decompression); `verify` also checks the footer's checksum of the compressed bytes.
    static func payload(_ f: MappedFile, _ info: BlockInfo, index k: Int, checkFooterSum: Bool = false) throws(StoreError) -> [UInt8] {
        let start = Int(info.offset)
        let frame = UnsafeRawBufferPointer(rebasing: f.bytes[start..<(start + Int(info.compressedLength))])
        if checkFooterSum, Checksum.hash(frame) != info.checksum { throw .corrupt("\(f.path) block \(k): checksum mismatch") }
        do {
            return try Zstd.decompress(frame, expectedSize: Int(info.rawLength))
        } catch {
            throw .corrupt("\(f.path) block \(k): \(error)")
        }
    }
}
