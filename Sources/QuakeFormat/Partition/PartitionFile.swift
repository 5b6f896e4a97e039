import QuakeSupport
import Foundation
import Synchronization
/// Format v2 keeps a whole partition in one file, `partitions/<key>.g<generation>.qkp`:
///
/// ```
/// [chunk]...                      one per column per block, codec-encoded
/// [place index], [aggregates]     PlaceIndex and UnitAggregates regions, when present
/// [directory]                     u32 columns, u32 blocks, u32 block rows, u32 flags (1: place
///                                 index, 2: aggregates, 4: chunk and region checksums are
///                                 ``Checksum/wide(_:)``, a framed chunk's over its head only:
///                                 ``FrameTable``), u64 rows, u32 rows per block,
///                                 ChunkInfo per column per block, the GranuleIndex, then
///                                 u64 offset, u64 length, u64 checksum of each region present
/// [footer, 32 bytes]              u64 directory offset, u64 directory length,
///                                 u64 directory checksum, magic "QKPART04" ("QKPART03" in
///                                 files written before granule sums, "QKPART02" before split
///                                 decimal chunks; both still read)
/// ```
/// Every chunk carries a checksum in the directory, checked before the chunk is first decoded.
package enum PartitionFile {
    package static let magic: [UInt8] = Array("QKPART04".utf8)
    /// Files without granule sums (``GranuleSums``): a build that cannot check them refuses the
    /// newer magic rather than read their chunks' packed data unchecked.
    package static let magicBeforeGranuleSums: [UInt8] = Array("QKPART03".utf8)
    /// Files without split decimal chunks (``ForDecimalCodec/split``), which builds before them
    /// could read; a build that cannot read a split chunk refuses the newer magic instead.
    package static let magicBeforeSplit: [UInt8] = Array("QKPART02".utf8)
    package static let footerSize = 32
    /// The directory flag of files whose chunk and region checksums are ``Checksum/wide(_:)``
    /// (the directory's own stays ``Checksum/hash(_:seed:)``); files written before it lack it.
    package static let wideChecksums: UInt32 = 4
    package static let fileExtension = "qkp"

    /// Location, codec and statistics of one chunk.
    package struct ChunkInfo: Sendable, Equatable {
        package var codec: CodecID
        package var offset: Int
        package var length: Int
        package var rows: Int
        package var stats: ChunkStats
        package var checksum: UInt64
        package static let size = 40

        package var nulls: Int { stats.nulls }
        package var min: Int64 { stats.min }
        package var max: Int64 { stats.max }

        package var minDouble: Double { Double(bitPattern: UInt64(bitPattern: stats.min)) }
        package var maxDouble: Double { Double(bitPattern: UInt64(bitPattern: stats.max)) }
    }

    /// The columns the granule index, the place index and the unit aggregates read the values
    /// of; the others' values the indexes take from the encoded chunks, or not at all.
    package static let indexedColumns: Set<Column> = [.time, .latitude, .longitude, .depth, .mag]

    /// One column's chunks copied from a partition file: their bytes one after another, and
    /// their directory entries with offsets from the start of `bytes`.
    package struct ColumnImage: Sendable {
        package var bytes: [UInt8]
        package var chunks: [ChunkInfo]
    }

    /// What a written partition file holds, for the manifest and `info`.
    package struct Written {
        package var bytes: [UInt8]
        package var columnBytes: [Int]
    }

    /// The codec a column's chunks use. Hot numeric columns and categories take lightweight
    /// codecs (no decompressor, any row range); free text takes zstd; other decimals take
    /// whichever of frame-of-reference and zstd byte planes is smaller for the chunk.
    package static func encodeChunk(_ c: Column, _ batch: RowBatch, rows: Range<Int>,
                                    into out: inout [UInt8]) -> (CodecID, ChunkStats) {
        switch c.kind {
        case .timestamp:
            return (.forInteger, ForIntegerCodec.encode(batch.ints[c.rawValue], rows: rows, into: &out))
        case .decimal:
            let values = batch.ints[c.rawValue]
            switch c {
            case .latitude, .longitude, .depth, .mag:
                return (.forDecimal, ForDecimalCodec.encode(values, rows: rows, splitting: c != .mag, into: &out))
            default:
                return smallerDecimal(values, rows: rows, into: &out)
            }
        case .category:
            return (.dictionary, DictionaryCodec.encode(batch.text[c.rawValue], rows: rows, into: &out))
        case .text:
            let arena = batch.text[c.rawValue]
            return framed(.zstdText, rows, &out, FramedCodec.mergeCounts) { r, o in
                ZstdTextCodec.encode(arena, rows: r, into: &o)
            }
        case .place:
            return (.placeCodes, PlaceCodesCodec.encode(batch.text[c.rawValue], rows: rows, into: &out))
        }
    }

    /// A zstd chunk for `rows` and its codec: `inner` alone when the rows fit in one frame, else
    /// a ``FramedCodec`` chunk of `inner` frames.
    static func framed(_ inner: CodecID, _ rows: Range<Int>, _ out: inout [UInt8],
                               _ merge: (ChunkStats, ChunkStats) -> ChunkStats,
                               _ encode: (Range<Int>, inout [UInt8]) -> ChunkStats) -> (CodecID, ChunkStats) {
        let frameRows = inner == .zstdText ? FramedCodec.textFrameRows : FramedCodec.frameRows
        if rows.count <= frameRows { return (inner, encode(rows, &out)) }
        return (.zstdFramed, FramedCodec.encode(inner: inner, rows: rows, frameRows: frameRows, into: &out,
                                                merge: merge, encodeFrame: encode))
    }

    /// Encodes a partition's rows (sorted by time, id) as one file image. The columns are
    /// encoded at once on the cores, each into its own buffer, then laid out in column order:
    /// the bytes are those of encoding them one after another.
    ///
    /// A column in `reused` (``ColumnImage``, its chunks as an earlier file of the same rows holds
    /// them) is laid out as given and not encoded: `batch` then needs none of its values, unless
    /// the indexes read them (`time`, `latitude`, `longitude`, `depth`, `mag`). An image of fewer
    /// chunks than blocks gives the first blocks; the rest are encoded from `batch`, which then
    /// needs values only in their rows (and the indexes' everywhere). With `previous`
    /// (that file's indexes and the rows that changed), the indexes are built again only for the
    /// granules those rows fall in (``PreviousIndexes``).
    package static func encode(_ batch: RowBatch, blockRows: Int, reused: [Int: ColumnImage] = [:],
                               previous: PreviousIndexes? = nil) -> Written {
        let blocks = Swift.max(1, (batch.count + blockRows - 1) / blockRows)
        let encoded = Slots<(bytes: [UInt8], chunks: [ChunkInfo])>(Column.count)
        DispatchQueue.concurrentPerform(iterations: Column.count) { k in
            guard let image = reused[k] else {
                encoded[k] = encodeColumn(Column.allCases[k], batch, blocks: 0..<blocks, blockRows: blockRows)
                return
            }
            guard image.chunks.count < blocks else {
                encoded[k] = (image.bytes, image.chunks)
                return
            }
            // the first blocks as given, the rest encoded after them
            let rest = encodeColumn(Column.allCases[k], batch, blocks: image.chunks.count..<blocks,
                                    blockRows: blockRows)
            let chunks = image.chunks + rest.chunks.map { chunk in
                var moved = chunk
                moved.offset += image.bytes.count
                return moved
            }
            encoded[k] = (image.bytes + rest.bytes, chunks)
        }
        let columns = (0..<Column.count).map { encoded[$0] ?? ([], []) }
        var out: [UInt8] = []
        let (infos, columnBytes) = layOut(columns, into: &out)
        let (granules, placeBytes, aggregateBytes) = indexes(batch, infos, out, blockRows: blockRows,
                                                             previous: previous)
        let place = appendRegion(placeBytes, to: &out)
        let aggregates = appendRegion(aggregateBytes, to: &out)
        let provenance = appendRegion(ProvenanceRegion.encode(batch), to: &out)
        let writer = directoryBytes(batch, blocks: blocks, blockRows: blockRows, infos: infos, granules: granules,
                                    place: place, aggregates: aggregates, provenance: provenance)
        let dirOffset = out.count
        let dirSum = Checksum.hash(writer.bytes)
        out.append(contentsOf: writer.bytes)
        var footer = ByteWriter()
        footer.u64(UInt64(dirOffset))
        footer.u64(UInt64(writer.bytes.count))
        footer.u64(dirSum)
        footer.bytes.append(contentsOf: magic)
        out.append(contentsOf: footer.bytes)
        return Written(bytes: out, columnBytes: columnBytes)
    }

    /// Appends the encoded columns' bytes to `out` one after another; returns their chunks with
    /// offsets from the start of `out`, and each column's byte count.
    private static func layOut(_ columns: [(bytes: [UInt8], chunks: [ChunkInfo])],
                               into out: inout [UInt8]) -> (infos: [[ChunkInfo]], columnBytes: [Int]) {
        // room for the regions and the directory that follow the columns (a few per cent of them): growing
        // the array past its capacity there copied the whole file once more (4 % of a one-event load)
        let columnsBytes = columns.reduce(0) { $0 + $1.bytes.count }
        out.reserveCapacity(columnsBytes + columnsBytes / 8 + (256 << 10))
        var infos: [[ChunkInfo]] = []
        var columnBytes = [Int](repeating: 0, count: Column.count)
        for (k, column) in columns.enumerated() {
            let base = out.count
            out.append(contentsOf: column.bytes)
            infos.append(column.chunks.map { i in
                var info = i
                info.offset += base
                return info
            })
            columnBytes[k] = column.bytes.count
        }
        return (infos, columnBytes)
    }

    /// The granule index, the place index and the unit aggregates of a partition whose chunks
    /// are `chunks` in `data`: the first two on one thread, the aggregates on another. With
    /// `previous`, each is patched where it can be (``PreviousIndexes``).
    private static func indexes(_ batch: RowBatch, _ chunks: [[ChunkInfo]], _ data: [UInt8], blockRows: Int,
                                previous: PreviousIndexes?) -> (GranuleIndex, [UInt8]?, [UInt8]?) {
        let granuleSlot = Slots<GranuleIndex>(1), placeSlot = Slots<[UInt8]>(1), aggregateSlot = Slots<[UInt8]>(1)
        let units = PlaceIndex.units(rows: batch.count, blockRows: blockRows)
        let touched = previous.map { UnitRegion.touched(units, rows: $0.rows) } ?? []
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            if k == 0 {
                let granules = previous.flatMap {
                    GranuleIndex(patching: $0.granules, batch, granules: $0.granules(rows: batch.count),
                                 magnitudesWhole: !$0.sparse.contains(.mag))
                } ?? GranuleIndex(batch)
                granuleSlot[0] = granules
                placeSlot[0] = previous.flatMap {
                    patchedPlaceIndex($0, batch, chunks[Column.place.rawValue], data, units: units, touched: touched,
                                      blockRows: blockRows, granules: granules)
                } ?? placeIndex(batch, chunks[Column.place.rawValue], data, blockRows: blockRows, granules: granules)
            } else if let patched = previous.flatMap({
                patchedAggregates($0, batch, chunks, data, units: units, touched: touched, blockRows: blockRows)
            }) {
                aggregateSlot[0] = patched
            } else if let codes = groupCodes(chunks, data) {
                aggregateSlot[0] = UnitAggregates.encode(batch, codes: codes, blockRows: blockRows)
            }
        }
        return (granuleSlot[0] ?? GranuleIndex(batch), placeSlot[0], aggregateSlot[0])
    }

    /// Appends `bytes` (when given) to `out` and returns where they lie, with their checksum.
    private static func appendRegion(_ bytes: [UInt8]?, to out: inout [UInt8]) -> Region? {
        guard let bytes else { return nil }
        let region = Region(offset: out.count, length: bytes.count, checksum: Checksum.wide(bytes))
        out.append(contentsOf: bytes)
        return region
    }

    /// The directory of a partition file: counts, flags, every chunk's codec, place, stats and
    /// checksum, the granule index, and where the optional regions lie.
    private static func directoryBytes(_ batch: RowBatch, blocks: Int, blockRows: Int, infos: [[ChunkInfo]],
                                       granules: GranuleIndex, place: Region?, aggregates: Region?,
                                       provenance: Region?) -> ByteWriter {
        var writer = ByteWriter()
        writer.u32(UInt32(Column.count))
        writer.u32(UInt32(blocks))
        writer.u32(UInt32(blockRows))
        let provenanceFlag = provenance == nil ? 0 : ProvenanceRegion.flag
        writer.u32((place == nil ? 0 : 1) | (aggregates == nil ? 0 : 2) | wideChecksums | provenanceFlag)
        writer.u64(UInt64(batch.count))
        for k in 0..<blocks { writer.u32(UInt32(infos[0][k].rows)) }
        for list in infos {
            for i in list {
                writer.u8(i.codec.rawValue)
                writer.u8(0)
                writer.u8(0)
                writer.u8(0)
                writer.u32(UInt32(i.length))
                writer.u64(UInt64(i.offset))
                writer.u32(UInt32(i.stats.nulls))
                writer.u32(0)
                writer.i64(i.stats.min)
                writer.i64(i.stats.max)
                // the checksum goes last: 40 bytes with it
            }
        }
        for list in infos { for i in list { writer.u64(i.checksum) } }
        granules.write(into: &writer)
        for region in [place, aggregates, provenance] {
            guard let region else { continue }
            writer.u64(UInt64(region.offset))
            writer.u64(UInt64(region.length))
            writer.u64(region.checksum)
        }
        return writer
    }

    /// Column `c`'s chunks of `blocks`, one per block, with offsets from the start of their bytes.
    private static func encodeColumn(_ c: Column, _ batch: RowBatch, blocks: Range<Int>, blockRows: Int)
        -> (bytes: [UInt8], chunks: [ChunkInfo]) {
        var out: [UInt8] = []
        var list: [ChunkInfo] = []
        for k in blocks {
            let rows = (k * blockRows)..<Swift.min(batch.count, (k + 1) * blockRows)
            let start = out.count
            let (codec, stats) = encodeChunk(c, batch, rows: rows, into: &out)
            // SAFETY: `b` is `out`'s storage for the closure's span; `start` <= out.count (the
            // chunk was just appended), and `covered` is at most the chunk's length.
            let sum = out.withUnsafeBytes { b in
                let chunk = UnsafeRawBufferPointer(rebasing: b[start...])
                let covered = codec.covered(chunk, count: rows.count)
                assert(covered <= chunk.count)
                return Checksum.wide(UnsafeRawBufferPointer(rebasing: chunk[..<covered]))
            }
            list.append(ChunkInfo(codec: codec, offset: start, length: out.count - start, rows: rows.count,
                                  stats: stats, checksum: sum))
        }
        return (out, list)
    }

    /// Values made on several threads, one slot each, read once all are done.
    private final class Slots<T: Sendable>: Sendable {
        private let values: Mutex<[T?]>
        init(_ n: Int) { values = Mutex(Array(repeating: nil, count: n)) }
        subscript(k: Int) -> T? {
            get { values.locked { $0[k] } }
            set { values.locked { $0[k] = newValue } }
        }
    }

    /// The place index of a partition's rows, from the locality codes its place chunks store;
    /// nil when a chunk is of an older place codec or the granule index has no mag histogram.
    private static func placeIndex(_ batch: RowBatch, _ chunks: [ChunkInfo], _ out: [UInt8], blockRows: Int,
                                   granules: GranuleIndex) -> [UInt8]? {
        var codes: [UInt32] = []
        codes.reserveCapacity(batch.count)
        for info in chunks {
            guard info.codec == .placeCodes else { return nil }
            // SAFETY: `info` describes a chunk encodeColumn appended to `out`, so its byte range lies
            // inside `out`, whose storage `b` is for the closure's span.
            let parsed = out.withUnsafeBytes { (b) -> [UInt32]? in
                assert(info.offset >= 0 && info.offset + info.length <= b.count)
                let payload = UnsafeRawBufferPointer(rebasing: b[info.offset..<(info.offset + info.length)])
                return try? PlaceCodesCodec.parse(payload, count: info.rows, dictionary: false).codes(0..<info.rows)
            }
            guard let parsed else { return nil }
            codes.append(contentsOf: parsed)
        }
        return PlaceIndex.encode(mags: batch.ints[Column.mag.rawValue], codes: codes, blockRows: blockRows,
                                 granules: granules)
    }

    /// Every row's code in its block's dictionary, for each of ``UnitAggregates/groupColumns``,
    /// read back from the encoded chunks; nil when a chunk is not a dictionary chunk.
    package static func groupCodes(_ chunks: [[ChunkInfo]], _ out: [UInt8]) -> [[UInt32]]? {
        var all: [[UInt32]] = []
        for c in UnitAggregates.groupColumns {
            var codes: [UInt32] = []
            for info in chunks[c.rawValue] {
                guard info.codec == .dictionary else { return nil }
                // SAFETY: as in placeIndex: each chunk's range lies inside `out` (storage `b`).
                let vector = out.withUnsafeBytes { (b) -> ColumnVector? in
                    assert(info.offset >= 0 && info.offset + info.length <= b.count)
                    let payload = UnsafeRawBufferPointer(rebasing: b[info.offset..<(info.offset + info.length)])
                    return try? DictionaryCodec.decode(payload, count: info.rows, rows: 0..<info.rows, as: .stored)
                }
                guard case .category(let block)? = vector else { return nil }
                codes.append(contentsOf: block.codes)
            }
            all.append(codes)
        }
        return all
    }

    /// A byte range of the data area with its checksum.
    package struct Region: Sendable, Equatable {
        package var offset: Int
        package var length: Int
        package var checksum: UInt64
    }

    /// A parsed, checked directory. A class: a reader hands it out on every chunk access, and a
    /// copy of a struct of a dozen arrays retains each of them.
    package final class Directory: Sendable {
        package let rows: Int
        package let blockRows: Int
        package let blockSizes: [Int]
        /// `chunks[column][block]`.
        package let chunks: [[ChunkInfo]]
        package let granules: GranuleIndex
        /// The ``PlaceIndex`` region (files written before it have none).
        package let placeIndex: Region?
        /// The ``UnitAggregates`` region (files written before them have none).
        package let aggregates: Region?
        /// The ``ProvenanceRegion`` (files whose rows all carried every field, and files written
        /// before it, have none).
        package let provenance: Region?
        /// Whether chunks and regions carry ``Checksum/wide(_:)`` sums.
        package let wideChecksums: Bool

        init(rows: Int, blockRows: Int, blockSizes: [Int], chunks: [[ChunkInfo]], granules: GranuleIndex,
             placeIndex: Region?, aggregates: Region?, provenance: Region?, wideChecksums: Bool) {
            self.rows = rows
            self.blockRows = blockRows
            self.blockSizes = blockSizes
            self.chunks = chunks
            self.granules = granules
            self.placeIndex = placeIndex
            self.aggregates = aggregates
            self.provenance = provenance
            self.wideChecksums = wideChecksums
        }

        /// The checksum of a region of this file, as its writer computed it.
        package func checksum(_ p: UnsafeRawBufferPointer) -> UInt64 {
            wideChecksums ? Checksum.wide(p) : Checksum.hash(p)
        }

        /// The checksum of chunk `info` (bytes `p`) as its writer computed it: in a file of wide
        /// sums, over the bytes its codec says the directory covers (frames check themselves).
        package func checksum(chunk p: UnsafeRawBufferPointer, _ info: ChunkInfo) -> UInt64 {
            guard wideChecksums else { return Checksum.hash(p) }
            // SAFETY: `covered` is at most the chunk's length, so the prefix lies inside `p`.
            assert(info.codec.covered(p, count: info.rows) <= p.count)
            return Checksum.wide(UnsafeRawBufferPointer(rebasing: p[..<info.codec.covered(p, count: info.rows)]))
        }
    }

    /// The row count a partition file's directory records (for `repair`, which has no manifest
    /// to say it); the directory is then read with the usual checks.
    package static func storedRows(_ b: UnsafeRawBufferPointer, path: String) throws(QuakeError) -> Int {
        guard b.count >= footerSize + 24 else { throw .corrupt(path, "too short for a partition file") }
        var reader = ByteReader(b, at: b.count - footerSize)
        let off = try reader.u64()
        guard off <= UInt64(b.count - footerSize - 24) else {
            throw .corrupt(path, "directory offset \(off) out of range")
        }
        var dirReader = ByteReader(b, at: Int(off) + 16)
        let rows = try dirReader.u64()
        guard rows >= 1, rows < 1 << 40 else { throw .corrupt(path, "directory lists \(rows) rows") }
        return Int(rows)
    }

    /// Reads and checks the footer and directory of a mapped partition file.
    package static func directory(_ b: UnsafeRawBufferPointer, path: String,
                                  rows expected: Int) throws(QuakeError) -> Directory {
        guard b.count >= footerSize else { throw .corrupt(path, "too short for a partition file") }
        // SAFETY: footerSize >= 8 bytes lie inside `b` (checked above); the caller keeps `b` mapped.
        assert(footerSize >= 8)
        let footerMagic = Array(b[(b.count - 8)...])
        guard [magic, magicBeforeGranuleSums, magicBeforeSplit].contains(footerMagic) else {
            throw .corrupt(path, "bad footer magic (not a v2 partition file)")
        }
        var reader = ByteReader(b, at: b.count - footerSize)
        let off = try reader.u64(), len = try reader.u64(), sum = try reader.u64()
        guard off <= UInt64(b.count - footerSize), len == UInt64(b.count - footerSize) - off else {
            throw .corrupt(path, "directory offset \(off) and length \(len) do not fit the file")
        }
        // SAFETY: off <= b.count - footerSize (checked above), so the directory lies inside `b`.
        let dir = UnsafeRawBufferPointer(rebasing: b[Int(off)..<(b.count - footerSize)])
        guard Checksum.hash(dir) == sum else { throw .corrupt(path, "directory checksum mismatch") }
        do {
            return try parse(dir, dataEnd: Int(off), rows: expected)
        } catch {
            throw .corrupt(path, "\(error.description.replacingPrefix("corrupt store: "))")
        }
    }

    private static func parse(_ dir: UnsafeRawBufferPointer, dataEnd: Int,
                              rows expected: Int) throws(QuakeError) -> Directory {
        var reader = ByteReader(dir)
        let cols = Int(try reader.u32()), blocks = Int(try reader.u32()), blockRows = Int(try reader.u32())
        let flags = try reader.u32()
        guard flags <= 15 else { throw .corrupt("directory flags \(flags)") }
        let storedRows = try reader.u64()
        guard cols == Column.count else { throw .corrupt("directory lists \(cols) columns") }
        guard storedRows == UInt64(expected) else {
            throw .corrupt("holds \(storedRows) rows, manifest says \(expected)")
        }
        let rows = expected
        guard blocks >= 1, blocks <= rows / Swift.max(1, blockRows) + 1, blockRows >= 1 else {
            throw .corrupt("directory lists \(blocks) blocks of \(blockRows) rows")
        }
        var sizes: [Int] = []
        var total = 0
        for _ in 0..<blocks {
            let count = Int(try reader.u32())
            sizes.append(count)
            total += count
        }
        guard total == rows else { throw .corrupt("blocks hold \(total) rows, directory says \(rows)") }
        // readers find a row's block as row / blockRows: every block but the last is full
        for (k, n) in sizes.enumerated() where k < blocks - 1 ? n != blockRows : n > blockRows {
            throw .corrupt("block \(k) holds \(n) rows, blocks hold \(blockRows)")
        }
        let chunks = try readChunks(&reader, columns: cols, sizes: sizes, dataEnd: dataEnd)
        let granules = try GranuleIndex(reading: &reader, rows: rows)
        let place = try flags & 1 == 0 ? nil
            : readRegion(&reader, dataEnd: dataEnd, least: 0, outside: "place index lies outside the data area")
        let aggregates = try flags & 2 == 0 ? nil
            : readRegion(&reader, dataEnd: dataEnd, least: 0, outside: "unit aggregates lie outside the data area")
        let provenance = try flags & ProvenanceRegion.flag == 0 ? nil
            : readRegion(&reader, dataEnd: dataEnd, least: 4,
                         outside: "the provenance region lies outside the data area")
        guard reader.remaining == 0 else { throw .corrupt("\(reader.remaining) stray bytes after the directory") }
        return Directory(rows: rows, blockRows: blockRows, blockSizes: sizes, chunks: chunks, granules: granules,
                         placeIndex: place, aggregates: aggregates, provenance: provenance,
                         wideChecksums: flags & wideChecksums != 0)
    }

    /// Reads the directory's chunk list, `columns` × `sizes.count`, then their checksums.
    private static func readChunks(_ reader: inout ByteReader, columns cols: Int, sizes: [Int],
                                   dataEnd: Int) throws(QuakeError) -> [[ChunkInfo]] {
        let blocks = sizes.count
        var chunks: [[ChunkInfo]] = []
        try reader.need(cols * blocks * (ChunkInfo.size + 8))
        for _ in 0..<cols {
            var list: [ChunkInfo] = []
            for k in 0..<blocks {
                let code = try reader.u8()
                reader.pos += 3
                let length = Int(try reader.u32()), offset = try reader.u64()
                let nulls = Int(try reader.u32())
                _ = try reader.u32()
                let mn = try reader.i64(), mx = try reader.i64()
                guard let codec = CodecID(rawValue: code) else { throw .corrupt("unknown codec \(code)") }
                guard offset <= UInt64(dataEnd), UInt64(length) <= UInt64(dataEnd) - offset, nulls <= sizes[k] else {
                    throw .corrupt("chunk \(k) lies outside the data area")
                }
                list.append(ChunkInfo(codec: codec, offset: Int(offset), length: length, rows: sizes[k],
                                      stats: ChunkStats(nulls: nulls, min: mn, max: mx), checksum: 0))
            }
            chunks.append(list)
        }
        for c in 0..<cols { for k in 0..<blocks { chunks[c][k].checksum = try reader.u64() } }
        return chunks
    }

    /// Reads an optional region's place and checksum; throws `outside` unless it lies in the data
    /// area and holds at least `least` bytes.
    private static func readRegion(_ reader: inout ByteReader, dataEnd: Int, least: UInt64,
                                   outside: String) throws(QuakeError) -> Region {
        let off = try reader.u64(), len = try reader.u64(), sum = try reader.u64()
        guard off <= UInt64(dataEnd), len >= least, len <= UInt64(dataEnd) - off else {
            throw .corrupt(outside)
        }
        return Region(offset: Int(off), length: Int(len), checksum: sum)
    }
}

extension String {
    package func replacingPrefix(_ p: String) -> String { hasPrefix(p) ? String(dropFirst(p.count)) : self }
}
