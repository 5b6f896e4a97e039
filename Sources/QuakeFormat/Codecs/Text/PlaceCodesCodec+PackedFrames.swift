/// Directions and distances bit-packed, not zstd-compressed: a frame of `n` rows is
/// `u8 direction width, u8 distance width, u16 0, i32 least distance`, then the rows' direction
/// codes (0 for ``PlacePayload/noPattern``, else the direction byte + 1) packed at the first
/// width, then their distances less the least one packed at the second (``BitPacking``).
///
/// A row reads alone, with no table to build: a day map's ten places printed from a zstd frame
/// of 512 rows spent 17 % of the query building that frame's Huffman tables and decoding it
/// (Benchmarks/RESULTS.md, "Place frames bit-packed").
extension PlaceCodesCodec {
    /// The chunk header's flag (with ``FrameTable/summedFlag``) for frames packed this way.
    package static let packedFlag: UInt8 = 2

    static let packedHeaderSize = 8

    /// Appends the packed frame of `dirs` and `dist` (one per row) to `out`.
    static func packFrame(_ dirs: ArraySlice<UInt8>, _ dist: ArraySlice<Int32>, into out: inout [UInt8]) {
        let codes = dirs.map { UInt64($0 == PlacePayload.noPattern ? 0 : Int($0) + 1) }
        let least = dist.min() ?? 0
        // d - least lies in 0..<2^32 for Int32 values: the wrapped difference as UInt32
        let offsets = dist.map { UInt64(UInt32(bitPattern: $0 &- least)) }
        let dirWidth = BitPacking.width(codes.max() ?? 0), distWidth = BitPacking.width(offsets.max() ?? 0)
        out.append(UInt8(dirWidth))
        out.append(UInt8(distWidth))
        out.append(0)
        out.append(0)
        // SAFETY: the closure copies the 4 bytes of a local value; the pointer does not escape it.
        withUnsafeBytes(of: least.littleEndian) { out.append(contentsOf: $0) }
        // SAFETY: each buffer spans its array's values and does not escape the closure.
        codes.withUnsafeBufferPointer { BitPacking.pack($0, width: dirWidth, into: &out) }
        // SAFETY: as above.
        offsets.withUnsafeBufferPointer { BitPacking.pack($0, width: distWidth, into: &out) }
    }

    /// Appends the directions and distances of rows `lo..<hi` of the packed frame `frame` of `n`
    /// rows; a frame whose size or widths do not match its rows is an error.
    static func unpackFrame(_ frame: ChunkBytes, rows n: Int, _ lo: Int, _ hi: Int,
                            dirs: inout [UInt8], dist: inout [Int32]) throws(QuakeError) {
        assert(0 <= lo && lo <= hi && hi <= n, "rows \(lo)..<\(hi) outside a frame of \(n)")
        guard frame.count >= packedHeaderSize else { throw .corrupt("place frame of \(frame.count) bytes") }
        let dirWidth = Int(frame.byte(at: 0)), distWidth = Int(frame.byte(at: 1))
        // direction codes run to 32 (5 bits would hold 31), distance offsets to 2^32 - 1
        guard dirWidth <= 6, distWidth <= 32 else { throw .corrupt("place frame widths \(dirWidth), \(distWidth)") }
        let dirBytes = BitPacking.bytes(n, width: dirWidth), distBytes = BitPacking.bytes(n, width: distWidth)
        guard frame.count == packedHeaderSize + dirBytes + distBytes else {
            throw .corrupt("place frame holds \(frame.count) bytes for \(n) rows")
        }
        // the header's 8 bytes lie in the frame (checked above)
        let least = frame.load(Int32.self, at: 4)
        let codes = PackedRun(frame.subrange(packedHeaderSize..<(packedHeaderSize + dirBytes)), width: dirWidth)
        let offsets = PackedRun(frame.subrange((packedHeaderSize + dirBytes)..<frame.count), width: distWidth)
        // both runs hold n values (their sizes were checked), and lo..<hi lies in 0..<n
        for i in lo..<hi {
            let code = codes.value(at: i)
            guard code <= 32 else { throw .corrupt("place direction code \(code)") }
            dirs.append(code == 0 ? PlacePayload.noPattern : UInt8(truncatingIfNeeded: code - 1))
            dist.append(least &+ Int32(truncatingIfNeeded: offsets.value(at: i)))
        }
    }
}
