/// Sums of a frame-of-reference chunk's packed data, one per granule, so that a query reading a
/// few rows of many chunks (a place top-N opening a hundred partitions for a hundred rows)
/// checks the granules it reads rather than every chunk whole.
///
/// A ``ForIntegerCodec`` or ``ForDecimalCodec`` chunk whose null header has ``flag`` holds, just
/// before its ``FrameOfReference`` body, `u32 granules` and one `u64` ``Checksum/wide(_:)`` per
/// granule of ``GranuleIndex/granuleRows`` rows (counted from the chunk's first row) over the
/// packed runs of that granule's miniblocks. The directory's chunk checksum covers the chunk up to
/// the body's packed data: the null bitmap, scales, remainders, this table and the miniblock
/// headers. Each granule's runs are checked against their sum before the reader first decodes
/// or compares a row of them.
package enum GranuleSums {
    /// The null-header flag of a chunk holding the table.
    package static let flag: UInt8 = 32
    static let miniblocksPerGranule = GranuleIndex.granuleRows / FrameOfReference.miniblockRows

    /// Granules of a chunk of `count` rows.
    static func granules(_ count: Int) -> Int { (count + GranuleIndex.granuleRows - 1) / GranuleIndex.granuleRows }

    /// Writes the table for `body`, a ``FrameOfReference`` body of `count` rows as its encoder
    /// wrote it.
    static func write(body: [UInt8], count: Int, into w: inout ByteWriter) {
        let granuleCount = granules(count)
        w.u32(UInt32(granuleCount))
        // SAFETY: `raw` is `body`'s own storage for the closure's span, and the Body made from it
        // does not outlive the closure; Body.init checks every miniblock's run against it, so each
        // packedRange lies inside `body.data`.
        body.withUnsafeBytes { raw in
            // the encoder's own body parses; a failure would be a bug, and the sums then fail too
            guard let body = try? FrameOfReference.Body(ChunkBytes(raw), count: count) else {
                for _ in 0..<granuleCount { w.u64(0) }
                return
            }
            for g in 0..<granuleCount { w.u64(Checksum.wide(body.data.subrange(body.packedRange(granule: g)).raw)) }
        }
    }

    /// Bytes ``write(body:count:into:)`` writes for `count` rows.
    static func size(_ count: Int) -> Int { 4 + 8 * granules(count) }

    /// Reads the table at `r` (left at the body), checked against the chunk's rows.
    /// The view borrows the reader's bytes (the mapped chunk), whose owner outlives the table.
    static func read(_ r: inout ByteReader, count: Int) throws(QuakeError) -> ChunkBytes {
        let granuleCount = Int(try r.u32())
        guard granuleCount == granules(count) else {
            throw .corrupt("granule sums list \(granuleCount) granules for \(count) rows")
        }
        return try r.take(8 * granuleCount)
    }

    /// A chunk's table and the body it sums, with offsets into the chunk.
    // @unchecked: a view, all `let`, of a chunk's bytes that nothing writes. The ``PartitionReader``
    // that keeps tables keeps them beside its own ``MappedFile``, whose read-only mapping outlives
    // them; any other maker (a codec's `covered`, a test) uses one only while it holds the bytes.
    // Threads only read it (the granule checks of one reader run on several scan threads).
    package struct Table: @unchecked Sendable {
        let sums: ChunkBytes
        let body: FrameOfReference.Body
        /// Where the body's packed data starts in the chunk: the directory's checksum covers the
        /// bytes before it.
        package let dataStart: Int

        init(sums: ChunkBytes, body: FrameOfReference.Body, chunk: ChunkBytes) {
            self.sums = sums
            self.body = body
            // body.data is a view cut from chunk (both from the same mapping)
            dataStart = chunk.offset(of: body.data)
        }

        package var granules: Int { sums.count / 8 }

        /// Whether granule `g`'s packed runs sum to what the table holds.
        package func check(_ g: Int) -> Bool {
            guard g >= 0, g < granules else { return false }
            // read checked that sums holds 8 bytes per granule, and g is one; Body.init checked
            // every miniblock's run against data, so packedRange lies inside it
            let want = sums.load(UInt64.self, at: 8 * g)
            return Checksum.wide(body.data.subrange(body.packedRange(granule: g)).raw) == want
        }

        /// The granules rows `rows` fall in.
        package static func granules(of rows: Range<Int>) -> Range<Int> {
            rows.isEmpty ? 0..<0
                : (rows.lowerBound / GranuleIndex.granuleRows)..<((rows.upperBound - 1) / GranuleIndex.granuleRows + 1)
        }
    }
}
