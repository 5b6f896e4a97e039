/// Frame-of-reference bit packing of `Int64` values in miniblocks of 1024 rows, the body that
/// ``ForIntegerCodec`` and ``ForDecimalCodec`` share.
///
/// Each miniblock is packed plain (`value - min`) or as deltas (`v[i] - v[i-1] - minDelta`),
/// whichever needs fewer bits, so sorted times cost a few bits a row and any row range decodes
/// from its miniblock's start. Layout:
/// `u32 miniblocks`, then per miniblock `i64 first, i64 reference, u8 width, u8 mode, u16 0,
/// u32 data offset`, then the packed data. All arithmetic wraps, so damaged bytes decode to wrong
/// numbers that the chunk checksum has already ruled out, never to a trap.
package enum FrameOfReference {
    package static let miniblockRows = 1024
    package static let headerSize = 24

    private enum Mode: UInt8 { case plain = 0, delta = 1 }

    /// Bytes `encode` writes for `values`.
    package static func size(_ values: UnsafeBufferPointer<Int64>) -> Int {
        var total = 4
        var start = 0
        while start < values.count {
            let end = Swift.min(values.count, start + miniblockRows)
            // SAFETY: start < end <= values.count (the loop bound and the min), so the slice lies in `values`.
            let (_, _, width, _) = choose(UnsafeBufferPointer(rebasing: values[start..<end]))
            total += headerSize + BitPacking.bytes(end - start, width: width)
            start = end
        }
        return total
    }

    /// The cheaper of plain and delta packing for one miniblock.
    private static func choose(_ v: UnsafeBufferPointer<Int64>) -> (mode: Mode, reference: Int64, width: Int,
                                                                    first: Int64) {
        guard let first = v.first else { return (.plain, 0, 0, 0) }
        var lo = first, hi = first
        var dlo = Int64.max, dhi = Int64.min
        var deltasFit = true
        for i in 0..<v.count {
            let value = v[i]
            if value < lo { lo = value }
            if value > hi { hi = value }
            if i > 0 && deltasFit {
                let (delta, overflow) = value.subtractingReportingOverflow(v[i - 1])
                if overflow { deltasFit = false } else {
                    if delta < dlo { dlo = delta }
                    if delta > dhi { dhi = delta }
                }
            }
        }
        let plainWidth = BitPacking.width(UInt64(bitPattern: hi &- lo))
        if deltasFit && v.count > 1 {
            let deltaWidth = BitPacking.width(UInt64(bitPattern: dhi &- dlo))
            if deltaWidth < plainWidth { return (.delta, dlo, deltaWidth, first) }
        }
        return (.plain, lo, plainWidth, first)
    }

    /// Appends the packed form of `values` to `out`.
    package static func encode(_ values: UnsafeBufferPointer<Int64>, into out: inout [UInt8]) {
        let count = values.count
        let blocks = (count + miniblockRows - 1) / miniblockRows
        var writer = ByteWriter()
        writer.u32(UInt32(blocks))
        var data: [UInt8] = []
        var scratch = [UInt64](repeating: 0, count: miniblockRows)
        var start = 0
        while start < count {
            let end = Swift.min(count, start + miniblockRows)
            // SAFETY: start < end <= count = values.count, so the miniblock's slice lies in `values`.
            let miniblock = UnsafeBufferPointer(rebasing: values[start..<end])
            let (mode, ref, width, first) = choose(miniblock)
            writer.i64(first)
            writer.i64(ref)
            writer.u8(UInt8(width))
            writer.u8(mode.rawValue)
            writer.u8(0)
            writer.u8(0)
            writer.u32(UInt32(data.count))
            // SAFETY: filled <= miniblock.count <= miniblockRows = scratch.count; `s` does not escape the closure.
            scratch.withUnsafeMutableBufferPointer { s in
                var filled = 0
                if mode == .plain {
                    for x in miniblock {
                        s[filled] = UInt64(bitPattern: x &- ref)
                        filled += 1
                    }
                } else {
                    s[0] = 0
                    filled = 1
                    for i in 1..<miniblock.count {
                        s[filled] = UInt64(bitPattern: miniblock[i] &- miniblock[i - 1] &- ref)
                        filled += 1
                    }
                }
                BitPacking.pack(UnsafeBufferPointer(rebasing: s[0..<filled]), width: width, into: &data)
            }
            start = end
        }
        out.append(contentsOf: writer.bytes)
        out.append(contentsOf: data)
    }

    /// A parsed body: miniblock headers and the packed data, bounds-checked. Views of the
    /// chunk's bytes, whose owner the caller keeps alive (see ``ChunkBytes``).
    package struct Body {
        package let headers: ChunkBytes
        package let data: ChunkBytes
        package let count: Int

        package init(_ raw: ChunkBytes, count: Int) throws(QuakeError) {
            var reader = ByteReader(raw.raw)
            let blocks = Int(try reader.u32())
            guard blocks == (count + FrameOfReference.miniblockRows - 1) / FrameOfReference.miniblockRows else {
                throw .corrupt("frame-of-reference body has \(blocks) miniblocks for \(count) rows")
            }
            headers = try reader.take(blocks * FrameOfReference.headerSize)
            data = try reader.rest()
            self.count = count
            // h + 24 <= blocks * headerSize = headers.count: the byte reads and the load at h + 20 lie in it
            for b in 0..<blocks {
                let header = b * FrameOfReference.headerSize
                let width = Int(headers.byte(at: header + 16)), mode = headers.byte(at: header + 17)
                let offset = Int(headers.load(UInt32.self, at: header + 20))
                let rows = Swift.min(FrameOfReference.miniblockRows, count - b * FrameOfReference.miniblockRows)
                guard width <= 64, mode <= 1, offset + BitPacking.bytes(rows, width: width) <= data.count else {
                    throw .corrupt("frame-of-reference miniblock \(b) runs past its chunk")
                }
            }
        }

        /// Miniblock `b`'s header: its first value, reference, whether it holds deltas, where its
        /// packed run starts in `data`, and the run (Body.init checked each).
        @inline(__always)
        private func miniblock(_ b: Int) -> (first: Int64, ref: Int64, delta: Bool, offset: Int, run: PackedRun) {
            assert(b >= 0 && (b + 1) * FrameOfReference.headerSize <= headers.count, "miniblock \(b) past the headers")
            // callers pass b < blocks (a row below count), so bytes h..<h + 24 lie in `headers`
            let header = b * FrameOfReference.headerSize
            let width = Int(headers.byte(at: header + 16)), offset = Int(headers.load(UInt32.self, at: header + 20))
            let rows = Swift.min(FrameOfReference.miniblockRows, count - b * FrameOfReference.miniblockRows)
            // Body.init checked offset + bytes(rows, width) <= data.count
            let run = PackedRun(data.subrange(offset..<(offset + BitPacking.bytes(rows, width: width))), width: width)
            return (headers.load(Int64.self, at: header), headers.load(Int64.self, at: header + 8),
                    headers.byte(at: header + 17) == 1, offset, run)
        }

        /// Miniblock `b`'s first value, from its header (`b` below the miniblock count).
        @inline(__always)
        package func first(ofMiniblock b: Int) -> Int64 {
            assert(b >= 0 && (b + 1) * FrameOfReference.headerSize <= headers.count, "miniblock \(b) past the headers")
            // callers pass b < blocks, so the 8 bytes at h lie in `headers` (Body.init checked its size)
            return headers.load(Int64.self, at: b * FrameOfReference.headerSize)
        }

        /// The bytes of `data` holding the packed runs of granule `g`'s miniblocks (``GranuleSums``):
        /// every byte a decode or compare of the granule's rows reads, the spare trailing words
        /// included. Body.init checked each run against `data`.
        package func packedRange(granule g: Int) -> Range<Int> {
            let per = GranuleSums.miniblocksPerGranule
            let blocks = headers.count / FrameOfReference.headerSize
            var lo = Int.max, hi = 0
            for b in (g * per)..<Swift.min(blocks, (g + 1) * per) {
                let (_, _, _, offset, run) = miniblock(b)
                let byteCount = run.byteCount
                if byteCount == 0 { continue }
                lo = Swift.min(lo, offset)
                hi = Swift.max(hi, offset + byteCount)
            }
            return lo < hi ? lo..<hi : 0..<0
        }

        /// The value of row `row` (`0..<count`) read alone, or nil when its miniblock is
        /// delta-coded and only a run from the miniblock's start could give it.
        package func value(_ row: Int) -> Int64? {
            let rowsPerBlock = FrameOfReference.miniblockRows
            let block = row / rowsPerBlock
            guard row >= 0, row < count else { return nil }
            let (_, ref, delta, _, run) = miniblock(block)
            if delta { return nil }
            // the row lies in 0..<count (the guard), so in the miniblock's run
            return ref &+ Int64(bitPattern: run.value(at: row - block * rowsPerBlock))
        }

        /// Writes to `out` (room for `rows.count`) the rows of `rows` whose value lies in `l...h`,
        /// in order, and returns how many. Packed values are compared with the bounds translated
        /// once per miniblock (`l <= ref + p <= h` as one unsigned compare of `p - (l - ref)`), without
        /// a branch per row; delta-coded miniblocks are decoded first.
        ///
        /// With `edges` (room for `rows.count`), the rows whose value is `l` (when `edgeLow`) or
        /// `h` (when `edgeHigh`) are also written there, in order, and counted in `edgeCount`.
        package func select(_ rows: Range<Int>, _ l: Int64, _ h: Int64, into out: UnsafeMutablePointer<UInt32>) -> Int {
            var none = 0
            return select(rows, l, h, into: out, edges: nil, edgeLow: false, edgeHigh: false, edgeCount: &none)
        }

        /// ``select(_:_:_:into:)`` that also lists the rows on an edge value (see above).
        // Long by design: the hot loop of the range select; see Benchmarks/RESULTS.md (10 box with mag >= M, count).
        package func select(_ rows: Range<Int>, _ l: Int64, _ h: Int64, into out: UnsafeMutablePointer<UInt32>,
                            edges: UnsafeMutablePointer<UInt32>?, edgeLow: Bool, edgeHigh: Bool,
                            edgeCount: inout Int) -> Int {
            assert(rows.lowerBound >= 0 && rows.upperBound <= count, "rows \(rows) outside 0..<\(count)")
            let rowsPerBlock = FrameOfReference.miniblockRows
            let span = UInt64(bitPattern: h &- l)
            // the two offsets from `l` that mark an edge row (one repeated when only one end is)
            let edgeA: UInt64 = edgeLow ? 0 : span, edgeB: UInt64 = edgeHigh ? span : 0
            var kept = 0, edgeRows = 0
            defer { edgeCount = edgeRows }
            var row = rows.lowerBound
            var scratch: [Int64] = []
            while row < rows.upperBound {
                let block = row / rowsPerBlock
                let (_, ref, delta, _, run) = miniblock(block)
                let width = run.width
                let blockStart = block * rowsPerBlock
                let lo = row - blockStart
                let hi = Swift.min(rows.upperBound, Swift.min(count, blockStart + rowsPerBlock)) - blockStart
                let shift = UInt64(bitPattern: l &- ref)
                if delta || width > 56 {
                    if scratch.count < rowsPerBlock { scratch = [Int64](repeating: 0, count: rowsPerBlock) }
                    // SAFETY: sp has rowsPerBlock >= hi - lo slots; out has room for rows.count rows, and kept counts
                    // rows visited.
                    scratch.withUnsafeMutableBufferPointer { sp in
                        // SAFETY: scratch holds a whole miniblock (rowsPerBlock values) and hi - lo <= rowsPerBlock.
                        guard let decoded = sp.baseAddress else { return }
                        decode((blockStart + lo)..<(blockStart + hi), into: decoded)
                        // rows fit in UInt32: a chunk holds at most the directory's u32 block rows
                        for i in 0..<(hi - lo) {
                            let row = UInt32(truncatingIfNeeded: blockStart + lo + i)
                            out[kept] = row
                            let fromLow = UInt64(bitPattern: decoded[i] &- l)
                            kept &+= fromLow <= span ? 1 : 0
                            if let edges, fromLow == edgeA || fromLow == edgeB {
                                edges[edgeRows] = row
                                edgeRows += 1
                            }
                        }
                    }
                } else if width == 0 {
                    // every value is the reference
                    if 0 &- shift <= span {
                        for i in lo..<hi {
                            out[kept] = UInt32(truncatingIfNeeded: blockStart + i)
                            kept += 1
                        }
                    }
                    if let edges, 0 &- shift == edgeA || 0 &- shift == edgeB {
                        for i in lo..<hi {
                            edges[edgeRows] = UInt32(truncatingIfNeeded: blockStart + i)
                            edgeRows += 1
                        }
                    }
                } else {
                    assert(run.holds(hi), "miniblock \(block) past the data")
                    // SAFETY: the rows lo..<hi lie in the miniblock's run; out (and edges) have room
                    // for rows.count rows, and the loops count at most the rows of lo..<hi.
                    if let edges {
                        (kept, edgeRows) = Body.listingEdges(run, lo: lo, hi: hi,
                                                   firstRow: UInt32(truncatingIfNeeded: blockStart + lo),
                                                   shift: shift, span: span, edgeA: edgeA, edgeB: edgeB,
                                                   out: out, kept, edges: edges, edgeRows)
                    } else {
                        kept = Body.inRange(run, lo: lo, hi: hi,
                                         firstRow: UInt32(truncatingIfNeeded: blockStart + lo),
                                         shift: shift, span: span, out: out, kept)
                    }
                }
                row = blockStart + hi
            }
            return kept
        }

        /// The packed loop of ``select(_:_:_:into:)`` over rows `lo..<hi` of one miniblock's run
        /// (of 1 to 56 bits), as ``listingEdges`` without the edges. Returns the new count.
        @inline(never)
        private static func inRange(_ run: PackedRun, lo: Int, hi: Int, firstRow: UInt32,
                                    shift: UInt64, span: UInt64, out: UnsafeMutablePointer<UInt32>, _ k0: Int) -> Int {
            let width = run.width, mask = run.mask
            var kept = k0, bit = lo &* width, row = firstRow
            // SAFETY: as in listingEdges.
            for _ in lo..<hi {
                out[kept] = row
                kept &+= (run.word(atBit: bit) & mask) &- shift <= span ? 1 : 0
                bit &+= width
                row &+= 1
            }
            return kept
        }

        /// The packed loop of ``select(_:_:_:into:edges:edgeLow:edgeHigh:edgeCount:)`` over rows
        /// `lo..<hi` of one miniblock's run (of 1 to 56 bits): every row is written to both lists
        /// and kept where it belongs, with no branch, and with few enough values live to stay in
        /// registers. Returns the new counts.
        @inline(never)
        private static func listingEdges(_ run: PackedRun, lo: Int, hi: Int, firstRow: UInt32,
                                         shift: UInt64, span: UInt64, edgeA: UInt64, edgeB: UInt64,
                                         out: UnsafeMutablePointer<UInt32>, _ k0: Int,
                                         edges: UnsafeMutablePointer<UInt32>, _ e0: Int) -> (Int, Int) {
            let width = run.width, mask = run.mask
            var kept = k0, edgeRows = e0, bit = lo &* width, row = firstRow
            // SAFETY: the rows lo..<hi lie in the miniblock, so each PackedRun.word(atBit:) load
            // stays in its run; out and edges have room for every row the caller's range holds,
            // and kept and edgeRows count at most the rows visited.
            // one edge (the common case: a box side on a round number) takes one compare a row, and
            // measurably less time than the two-compare loop (Hawaii's box: 12.8 against 14.3 ms)
            if edgeA == edgeB {
                for _ in lo..<hi {
                    let distance = (run.word(atBit: bit) & mask) &- shift
                    out[kept] = row
                    kept &+= distance <= span ? 1 : 0
                    edges[edgeRows] = row
                    edgeRows &+= distance == edgeA ? 1 : 0
                    bit &+= width
                    row &+= 1
                }
            } else {
                for _ in lo..<hi {
                    let distance = (run.word(atBit: bit) & mask) &- shift
                    out[kept] = row
                    kept &+= distance <= span ? 1 : 0
                    edges[edgeRows] = row
                    edgeRows &+= (distance == edgeA ? 1 : 0) | (distance == edgeB ? 1 : 0)
                    bit &+= width
                    row &+= 1
                }
            }
            return (kept, edgeRows)
        }

        /// Writes to `out` (room for `among.count`) the rows of `among` (ascending) whose value
        /// lies in `l...h`, in order, and returns how many; nil when a row lies past the chunk.
        /// Each row's packed value is read alone with its miniblock's header read once; a
        /// delta-coded or wide miniblock is decoded whole first.
        package func select(among: [UInt32], _ l: Int64, _ h: Int64, into out: UnsafeMutablePointer<UInt32>) -> Int? {
            var none = 0
            return select(among: among, l, h, into: out, edges: nil, edgeLow: false, edgeHigh: false, edgeCount: &none)
        }

        /// ``select(among:_:_:into:)`` that also lists the rows on an edge value, as
        /// ``select(_:_:_:into:edges:edgeLow:edgeHigh:edgeCount:)`` does (`edges` has room for
        /// `among.count`).
        // Long by design: the hot loop of the range select among rows; see Benchmarks/RESULTS.md
        // (10 box with mag >= M, count).
        package func select(among: [UInt32], _ l: Int64, _ h: Int64, into out: UnsafeMutablePointer<UInt32>,
                            edges: UnsafeMutablePointer<UInt32>?, edgeLow: Bool, edgeHigh: Bool,
                            edgeCount: inout Int) -> Int? {
            let rowsPerBlock = FrameOfReference.miniblockRows
            let span = UInt64(bitPattern: h &- l)
            let edgeA: UInt64 = edgeLow ? 0 : span, edgeB: UInt64 = edgeHigh ? span : 0
            var kept = 0, edgeRows = 0
            defer { edgeCount = edgeRows }
            var scratch: [Int64] = []
            // SAFETY: position and cursor stay below a.count (the loop conditions); `a` does not escape the closure.
            return among.withUnsafeBufferPointer { a -> Int? in
                var position = 0
                // one run of rows per miniblock: its header read once, then a loop with every
                // value it needs in registers
                while position < a.count {
                    let first = Int(a[position])
                    guard first < count else { return nil }
                    let block = first / rowsPerBlock
                    let blockStart = block * rowsPerBlock
                    // clamped, never trapping: every row of `among` is a UInt32 already
                    let lowRow = UInt32(clamping: blockStart)
                    let endRow = UInt32(clamping: Swift.min(count, blockStart + rowsPerBlock))
                    let (_, ref, delta, _, run) = miniblock(block)
                    let width = run.width
                    let shift = UInt64(bitPattern: l &- ref)
                    var cursor = position
                    if delta || width > 56 {
                        if scratch.count < rowsPerBlock { scratch = [Int64](repeating: 0, count: rowsPerBlock) }
                        // SAFETY: sp has rowsPerBlock slots, decode fills endRow - blockStart <= rowsPerBlock;
                        // a[cursor] - blockStart < rowsPerBlock.
                        scratch.withUnsafeMutableBufferPointer { sp in
                            // SAFETY: scratch holds a whole miniblock (rowsPerBlock values), at least its rows.
                            guard let decoded = sp.baseAddress else { return }
                            decode(blockStart..<Int(endRow), into: decoded)
                            while cursor < a.count, a[cursor] >= lowRow, a[cursor] < endRow {
                                out[kept] = a[cursor]
                                let fromLow = UInt64(bitPattern: decoded[Int(a[cursor]) - blockStart] &- l)
                                kept &+= fromLow <= span ? 1 : 0
                                if let edges, fromLow == edgeA || fromLow == edgeB {
                                    edges[edgeRows] = a[cursor]
                                    edgeRows += 1
                                }
                                cursor += 1
                            }
                        }
                    } else if width == 0 {
                        let hit = 0 &- shift <= span
                        let edge = edges != nil && (0 &- shift == edgeA || 0 &- shift == edgeB)
                        while cursor < a.count, a[cursor] >= lowRow, a[cursor] < endRow {
                            out[kept] = a[cursor]
                            kept &+= hit ? 1 : 0
                            if edge, let edges {
                                edges[edgeRows] = a[cursor]
                                edgeRows += 1
                            }
                            cursor += 1
                        }
                    } else {
                        let mask = run.mask
                        assert(run.holds(Int(endRow - lowRow)), "miniblock \(block) runs past the data")
                        // SAFETY: each row lies in the miniblock, so each PackedRun.word(atBit:) load
                        // stays in its run; out has room for among.count rows and kept counts at most
                        // the rows visited.
                        if let edges {
                            (cursor, kept, edgeRows) = Body.amongListingEdges(a, cursor, run, lowRow: lowRow,
                                                               endRow: endRow, shift: shift, span: span,
                                                               edgeA: edgeA, edgeB: edgeB, out: out, kept,
                                                               edges: edges, edgeRows)
                        } else {
                            while cursor < a.count {
                                let row = a[cursor]
                                if row < lowRow || row >= endRow { break }
                                let bit = Int(row &- lowRow) &* width
                                out[kept] = row
                                kept &+= run.word(atBit: bit) & mask &- shift <= span ? 1 : 0
                                cursor += 1
                            }
                        }
                    }
                    // a row no run could take (past 2^32 - 1): damaged, never an endless loop
                    guard cursor > position else { return nil }
                    position = cursor
                }
                return kept
            }
        }

        /// The packed loop of ``select(among:_:_:into:edges:edgeLow:edgeHigh:edgeCount:)`` over the
        /// rows `a[j...]` that lie in one miniblock (`lowRow..<endRow`, its run of 1 to 56 bits),
        /// in a function of its own so that its values stay in registers. Returns the next row's
        /// index and the new counts.
        @inline(never)
        private static func amongListingEdges(_ a: UnsafeBufferPointer<UInt32>, _ j0: Int, _ run: PackedRun,
                                              lowRow: UInt32, endRow: UInt32, shift: UInt64, span: UInt64,
                                              edgeA: UInt64, edgeB: UInt64, out: UnsafeMutablePointer<UInt32>,
                                              _ k0: Int, edges: UnsafeMutablePointer<UInt32>,
                                              _ e0: Int) -> (Int, Int, Int) {
            let width = run.width, mask = run.mask
            var cursor = j0, kept = k0, edgeRows = e0
            // SAFETY: each row lies in the miniblock, so each PackedRun.word(atBit:) load stays in
            // its run; out and edges have room for a.count rows, and kept and edgeRows count at most the
            // rows visited.
            while cursor < a.count {
                let row = a[cursor]
                if row < lowRow || row >= endRow { break }
                let bit = Int(row &- lowRow) &* width
                let distance = (run.word(atBit: bit) & mask) &- shift
                out[kept] = row
                kept &+= distance <= span ? 1 : 0
                edges[edgeRows] = row
                edgeRows &+= (distance == edgeA ? 1 : 0) | (distance == edgeB ? 1 : 0)
                cursor &+= 1
            }
            return (cursor, kept, edgeRows)
        }

        /// Decodes rows `rows` into `out[0..<rows.count]`.
        package func decode(_ rows: Range<Int>, into out: UnsafeMutablePointer<Int64>) {
            assert(rows.lowerBound >= 0 && rows.upperBound <= count, "rows \(rows) outside 0..<\(count)")
            let rowsPerBlock = FrameOfReference.miniblockRows
            var done = 0
            var row = rows.lowerBound
            var scratch = [UInt64](repeating: 0, count: rowsPerBlock)
            while row < rows.upperBound {
                let block = row / rowsPerBlock
                let (first, ref, delta, _, run) = miniblock(block)
                let blockStart = block * rowsPerBlock
                let lo = row - blockStart
                let hi = Swift.min(rows.upperBound, Swift.min(count, blockStart + rowsPerBlock)) - blockStart
                // the rows lo..<hi lie in the miniblock, so in its run (unpack asserts they fit)
                if !delta {
                    // SAFETY: Int64 and UInt64 share size and alignment, so rebinding hi - lo slots of `out` is sound.
                    // SAFETY: out has room for rows.count values; hi - lo more fit at `done`.
                    out.advanced(by: done).withMemoryRebound(to: UInt64.self, capacity: hi - lo) { p in
                        run.unpack(lo..<hi, reference: UInt64(bitPattern: ref), into: p)
                    }
                } else {
                    // SAFETY: `s` is used only inside the closure; see the notes below for the bounds.
                    scratch.withUnsafeMutableBufferPointer { s in
                        // SAFETY: scratch holds a whole miniblock (rowsPerBlock values), hi <= rowsPerBlock, and out
                        // has
                        // room for hi - lo more values at `done`.
                        guard let sp = s.baseAddress, hi > lo else { return }
                        run.unpack(0..<hi, reference: UInt64(bitPattern: ref), into: sp)
                        // the rows before `lo` only move the running value: one wrapping sum
                        var skipped: UInt64 = 0
                        var skipRow = 1
                        while skipRow <= lo {
                            skipped &+= sp[skipRow]
                            skipRow &+= 1
                        }
                        var running = first &+ Int64(bitPattern: skipped)
                        let dst = out.advanced(by: done)
                        dst[0] = running
                        var written = 1
                        while written < hi &- lo {
                            running = running &+ Int64(bitPattern: sp[lo &+ written])
                            dst[written] = running
                            written &+= 1
                        }
                    }
                }
                done += hi - lo
                row = blockStart + hi
            }
        }
    }
}
