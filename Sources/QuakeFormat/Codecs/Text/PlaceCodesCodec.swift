/// Place names with their locality codes in the open: the ``PlacePayload`` split, but the
/// locality dictionary is stored raw and the per-row codes bit-packed, outside any compression,
/// so that a place search reads the dictionary once and compares codes (no decompression at
/// all unless the needle can touch the `<N> km <DIR> of ` prefix). Distances and directions,
/// needed only to print a place, sit in frames of 512 rows, bit-packed (older chunks: zstd).
///
/// Chunk: `u8 code width, u8 flags, u16 frame rows (0 in older chunks: 4,096)`, the dictionary
/// (``CategoryPayload`` layout), the packed codes, then `u32 frames` and the ``FrameTable``
/// (summed when the flags hold ``FrameTable/summedFlag``), then the frames. With ``packedFlag``
/// each is a packed frame (see `PlaceCodesCodec+PackedFrames.swift`); without it (older chunks),
/// a ``ZstdFrame`` of the frame's direction bytes followed by its distances as `Int32`.
package enum PlaceCodesCodec: ColumnCodec {
    package static let id = CodecID.placeCodes
    /// Rows per frame of directions and distances (older chunks: ``GranuleIndex/granuleRows``).
    package static let frameRows = GranuleIndex.granuleRows / 8

    private static func split(_ a: ByteArena, rows: Range<Int>) -> (SliceInterner, [UInt64], [UInt8], [Int32]) {
        var dict = SliceInterner()
        var dist = [Int32](repeating: 0, count: rows.count)
        var dirs = [UInt8](repeating: PlacePayload.noPattern, count: rows.count)
        var loc = [UInt64](repeating: 0, count: rows.count)
        // SAFETY: each row's range lies in the arena's bytes and parts.rest lies in `place` (split's result), so
        // every slice stays in `b`; no pointer outlives the closure (intern copies the bytes).
        a.bytes.withUnsafeBytes { b in
            for (k, i) in rows.enumerated() {
                let range = a.range(i)
                if range.isEmpty { continue }
                let place = UnsafeRawBufferPointer(rebasing: b[range])
                if let parts = PlacePayload.split(place) {
                    dist[k] = parts.dist
                    dirs[k] = parts.dir
                    loc[k] = UInt64(dict.intern(UnsafeRawBufferPointer(rebasing: place[parts.rest])) + 1)
                } else {
                    loc[k] = UInt64(dict.intern(place) + 1)
                }
            }
        }
        return (dict, loc, dirs, dist)
    }

    package static func analyze(_ values: ByteArena, rows: Range<Int>) -> Int {
        var out: [UInt8] = []
        _ = encode(values, rows: rows, into: &out)
        return out.count
    }

    package static func encode(_ values: ByteArena, rows: Range<Int>, into out: inout [UInt8]) -> ChunkStats {
        encode(values, rows: rows, frameRows: frameRows, into: &out)
    }

    /// A chunk whose directions and distances sit in frames of `frameRows` rows (at most 65,535).
    /// `packed` false writes zstd frames, as older writers did.
    package static func encode(_ values: ByteArena, rows: Range<Int>, frameRows: Int, packed: Bool = true,
                               into out: inout [UInt8]) -> ChunkStats {
        let (dict, loc, dirs, dist) = split(values, rows: rows)
        let width = BitPacking.width(UInt64(dict.count))
        var writer = ByteWriter()
        writer.u8(UInt8(width))
        writer.u8(FrameTable.summedFlag | (packed ? packedFlag : 0))
        writer.u8(UInt8(frameRows & 0xFF))
        writer.u8(UInt8(frameRows >> 8))
        CategoryPayload.writeDictionary(dict.values, into: &writer)
        // SAFETY: `$0` spans the codes array's count values and does not escape the closure.
        loc.withUnsafeBufferPointer { BitPacking.pack($0, width: width, into: &writer.bytes) }
        let frames = Swift.max(1, (rows.count + frameRows - 1) / frameRows)
        var data: [UInt8] = []
        var ends: [UInt32] = []
        for f in 0..<frames {
            let frameRange = (f * frameRows)..<Swift.min(rows.count, (f + 1) * frameRows)
            if packed {
                packFrame(dirs[frameRange], dist[frameRange], into: &data)
                ends.append(UInt32(data.count))
                continue
            }
            var payload = Array(dirs[frameRange])
            // SAFETY: the closure copies the 4 bytes of a local value; the pointer does not escape it.
            for d in dist[frameRange] { withUnsafeBytes(of: d.littleEndian) { payload.append(contentsOf: $0) } }
            ZstdFrame.wrap(payload, into: &data)
            ends.append(UInt32(data.count))
        }
        writer.u32(UInt32(frames))
        FrameTable.write(ends: ends, data: data, into: &writer)
        out.append(contentsOf: writer.bytes)
        out.append(contentsOf: data)
        return ChunkStats(nulls: values.nullCount(rows), min: 0, max: 0)
    }

    /// The chunk's parts, bounds-checked.
    package struct Parsed {
        /// The dictionary (empty when parsed without it).
        package var dictionary: ByteArena
        package var dictionaryCount: Int
        package var width: Int
        /// The packed codes of `count` rows (a view of the chunk, alive as long as it).
        package var codes: PackedRun
        package var frames: FrameTable
        package var count: Int
        package var frameRows: Int
        /// Whether the frames are bit-packed (else zstd, as older chunks).
        package var packed: Bool

        /// The codes of `rows`, each checked against the dictionary.
        package func codes(_ rows: Range<Int>) throws(QuakeError) -> [UInt32] {
            assert(rows.lowerBound >= 0 && rows.upperBound <= count, "rows \(rows) outside 0..<\(count)")
            var wide = [UInt64](repeating: 0, count: rows.count)
            // SAFETY: `p` is used only inside the closure; see the lines below for the unpack bounds.
            wide.withUnsafeMutableBufferPointer { p in
                // SAFETY: p holds rows.count values; `codes` holds the packed run of `count` rows,
                // checked at parse, and rows lies inside 0..<count.
                if let base = p.baseAddress { codes.unpack(rows, reference: 0, into: base) }
            }
            var out = [UInt32](repeating: 0, count: rows.count)
            let dictionarySize = UInt64(dictionaryCount)
            for i in 0..<wide.count {
                guard wide[i] <= dictionarySize else { throw .corrupt("place code \(wide[i]) outside its dictionary") }
                out[i] = UInt32(truncatingIfNeeded: wide[i])
            }
            return out
        }

        /// The code of one row (inside `0..<count`), checked against the dictionary.
        package func code(_ row: Int) throws(QuakeError) -> UInt32 {
            assert(row >= 0 && row < count, "row \(row) outside 0..<\(count)")
            // callers pass row < count and parse checked `codes` holds the packed run of count rows
            let code = codes.value(at: row)
            guard code <= UInt64(dictionaryCount) else { throw .corrupt("place code \(code) outside its dictionary") }
            return UInt32(truncatingIfNeeded: code)
        }

        /// Directions and distances of `rows`, reading only the frames they touch.
        package func patterns(_ rows: Range<Int>) throws(QuakeError) -> ([UInt8], [Int32]) {
            var dirs: [UInt8] = [], dist: [Int32] = []
            dirs.reserveCapacity(rows.count)
            dist.reserveCapacity(rows.count)
            if rows.isEmpty { return (dirs, dist) }
            assert(rows.lowerBound >= 0 && rows.upperBound <= count, "rows \(rows) outside 0..<\(count)")
            // SAFETY: rows lie in 0..<count, so f < frames (parse checked frames == ceil(count / frameRows)).
            for f in (rows.lowerBound / frameRows)...((rows.upperBound - 1) / frameRows) {
                let start = f * frameRows
                let frameCount = Swift.min(count, start + frameRows) - start
                let lo = Swift.max(rows.lowerBound, start) - start
                let hi = Swift.min(rows.upperBound, start + frameCount) - start
                if packed {
                    try PlaceCodesCodec.unpackFrame(try frames.frame(f), rows: frameCount, lo, hi, dirs: &dirs,
                                                    dist: &dist)
                    continue
                }
                let raw = try ZstdFrame.unwrap(frames.frame(f))
                guard raw.count == 5 * frameCount else {
                    throw .corrupt("place frame \(f) holds \(raw.count) bytes for \(frameCount) rows")
                }
                // SAFETY: `buffer` views `raw` only inside the closure. raw.count == 5 * frameCount was checked and
                // lo..<hi lies in 0..<frameCount: each byte read is below frameCount and each Int32 load at
                // frameCount + 4 * i ends by 5 * frameCount.
                raw.withUnsafeBytes { buffer in
                    let chunkBytes = ChunkBytes(buffer)
                    for i in lo..<hi {
                        dirs.append(chunkBytes.byte(at: i))
                        dist.append(chunkBytes.load(Int32.self, at: frameCount + 4 * i))
                    }
                }
            }
            try PlacePayload.checkDirections(dirs)
            return (dirs, dist)
        }
    }

    /// The chunk's parts; with `dictionary` false the dictionary is skipped, not copied.
    package static func parse(_ chunk: UnsafeRawBufferPointer, count: Int, dictionary: Bool = true,
                              checks: FrameChecks? = nil) throws(QuakeError) -> Parsed {
        // every header read goes through ByteReader; `codes` is a view it checked
        var reader = ByteReader(chunk)
        let width = Int(try reader.u8())
        let flags = try reader.u8()
        let summed = try FrameTable.summed(flags & ~packedFlag)
        let lowRows = Int(try reader.u8()), highRows = Int(try reader.u8())
        let frameRows = lowRows | highRows << 8 == 0 ? GranuleIndex.granuleRows : lowRows | highRows << 8
        var dict = ByteArena()
        let entries: Int
        if dictionary {
            dict = try CategoryPayload.readDictionary(&reader)
            entries = dict.count
        } else {
            entries = Int(try reader.u32())
            guard entries <= reader.remaining / 4 else { throw .corrupt("dictionary size \(entries)") }
            var total = 0
            for _ in 0..<entries { total += Int(try reader.u32()) }
            try reader.need(total)
            reader.pos += total
        }
        guard width == BitPacking.width(UInt64(entries)) else { throw .corrupt("place code width \(width)") }
        let codes = PackedRun(try reader.take(BitPacking.bytes(count, width: width)), width: width)
        let frames = Int(try reader.u32())
        guard frames == Swift.max(1, (count + frameRows - 1) / frameRows) else {
            throw .corrupt("place chunk holds \(frames) frames for \(count) rows")
        }
        let table = try FrameTable(chunk, at: &reader, frames: frames, summed: summed, checks: checks)
        return Parsed(dictionary: dict, dictionaryCount: entries, width: width, codes: codes, frames: table,
                      count: count, frameRows: frameRows, packed: flags & packedFlag != 0)
    }

    /// The bytes the directory's checksum covers: the head of a summed chunk (dictionary, codes
    /// and frame table), else all of it.
    package static func covered(_ chunk: UnsafeRawBufferPointer, count: Int) throws(QuakeError) -> Int {
        let frames = try parse(chunk, count: count, dictionary: false).frames
        // SAFETY: chunk.count > 1 is checked before chunk[1] is read.
        return chunk.count > 1 && chunk[1] & FrameTable.summedFlag != 0 ? frames.headLength : chunk.count
    }

    package static func decode(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>,
                       as form: VectorForm) throws(QuakeError) -> ColumnVector {
        try decode(chunk, count: count, rows: rows, as: form, checks: nil)
    }

    /// Decodes rows `rows`; `checks` remembers the frames whose sums were checked.
    package static func decode(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>,
                       as form: VectorForm, checks: FrameChecks?) throws(QuakeError) -> ColumnVector {
        guard rows.lowerBound >= 0, rows.upperBound <= count else { throw .corrupt("row range \(rows) outside chunk") }
        let parsed = try parse(chunk, count: count, checks: checks)
        let (dirs, dist) = try parsed.patterns(rows)
        return .place(PlaceBlock(localities: parsed.dictionary, locality: try parsed.codes(rows), direction: dirs,
                                 distance: dist))
    }
}
