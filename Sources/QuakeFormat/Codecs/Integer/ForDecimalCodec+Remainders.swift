/// Split decimal chunks: when a chunk mixes scales (latitudes written with 4 and with 7
/// decimals, depths with 1 to 14), normalizing every value to the largest scale `S` spends the
/// extra digits on every row. A split chunk (flag ``split``) packs `q = floor(M / 10^k)` through
/// ``FrameOfReference`` instead, and keeps the remainder `M - q * 10^k` only for the rows that
/// have one: the rows whose scale shift is under `k` (every other row's `M` is a multiple of
/// `10^k`). The shifts are packed already, so they say which rows hold a remainder.
///
/// After the negative zeros: `u8 k, u8 remainder width, u32 remainders`, one `u32` per
/// 1,024-row miniblock (the remainders before it), then the remainders packed in row order.
///
/// `k` is chosen per chunk from the shift histogram and each miniblock's least and greatest
/// `M`, as the split that packs into the fewest bits; 0 (no split) when none saves any.
extension ForDecimalCodec {
    /// The chunk is split (see the type's documentation).
    package static let split: UInt8 = 16

    /// The remainders of a parsed split chunk.
    struct Remainders {
        var k: Int
        var width: Int
        var count: Int
        /// `u32` per miniblock: the remainders of the rows before it.
        var before: ChunkBytes
        /// The `count` remainders, at `width` bits.
        var packed: PackedRun

        var unit: Int64 { Int64(truncatingIfNeeded: ForDecimalCodec.power(k)) }

        func first(ofMiniblock b: Int) -> Int {
            // callers pass b < blocks = ceil(count / 1024), and `before` holds 4 * blocks bytes
            Int(before.load(UInt32.self, at: b * 4))
        }
    }

    static func power(_ k: Int) -> Int64 {
        var power: Int64 = 1
        for _ in 0..<k { power &*= 10 }
        return power
    }

    @inline(__always)
    static func floorDiv(_ a: Int64, _ d: Int64) -> Int64 {
        let quotient = a / d
        return (a % d != 0 && a < 0) ? quotient - 1 : quotient
    }

    /// Picks `k` for a prepared chunk and, when it saves bits, replaces `p.m` by the quotients
    /// and fills the remainders. Null rows take the greatest shift, so they never hold one.
    static func chooseSplit(_ p: inout Prepared, _ v: [Int64], rows: Range<Int>, maxShift: Int) {
        guard !p.raw, maxShift > 0, maxShift < 19 else { return }
        let (lows, highs) = miniblockBounds(p.m, count: rows.count)
        let histogram = shiftHistogram(v, rows: rows, shifts: p.shifts, maxShift: maxShift)
        let best = bestSplit(lows: lows, highs: highs, histogram: histogram, count: rows.count, maxShift: maxShift)
        guard best > 0 else { return }
        applySplit(&p, v, rows: rows, best: best, maxShift: maxShift,
                   held: histogram[0..<best].reduce(0, +), miniblocks: lows.count)
    }

    /// The least and greatest of each miniblock of the first `count` values of `mantissas`.
    private static func miniblockBounds(_ mantissas: [Int64], count: Int) -> (lows: [Int64], highs: [Int64]) {
        let mb = FrameOfReference.miniblockRows
        var lows: [Int64] = [], highs: [Int64] = []
        lows.reserveCapacity(count / mb + 1)
        highs.reserveCapacity(count / mb + 1)
        // SAFETY: start < end <= count = m.count, so each slice lies in `m`; `m` does not escape the closure.
        mantissas.withUnsafeBufferPointer { m in
            var start = 0
            while start < count {
                let end = Swift.min(count, start + mb)
                var lo = Int64.max, hi = Int64.min
                for x in UnsafeBufferPointer(rebasing: m[start..<end]) {
                    if x < lo { lo = x }
                    if x > hi { hi = x }
                }
                lows.append(lo)
                highs.append(hi)
                start = end
            }
        }
        return (lows, highs)
    }

    /// How many rows of `rows` that are not null have each shift `0...maxShift`.
    private static func shiftHistogram(_ v: [Int64], rows: Range<Int>, shifts: [UInt64], maxShift: Int) -> [Int] {
        var histogram = [Int](repeating: 0, count: maxShift + 1)
        // SAFETY: the pointers are used only inside these closures; see the note below for bounds.
        v.withUnsafeBufferPointer { all in
            shifts.withUnsafeBufferPointer { shifts in
                histogram.withUnsafeMutableBufferPointer { h in
                    // SAFETY: `rows` lies inside `v`, `shifts` holds one value per row of `rows`, and every
                    // shift of a row that is not null is at most `maxShift`, the histogram's last index.
                    let src = UnsafeBufferPointer(rebasing: all[rows])
                    for k in 0..<rows.count where src[k] != RowBatch.null { h[Int(shifts[k])] += 1 }
                }
            }
        }
        return histogram
    }

    /// The `k` of `1...maxShift` whose split packs in the fewest bits, or 0 when none beats no split.
    private static func bestSplit(lows: [Int64], highs: [Int64], histogram: [Int], count: Int, maxShift: Int) -> Int {
        let mb = FrameOfReference.miniblockRows
        func cost(_ k: Int) -> Int {
            let divisor = power(k)
            var bits = 0
            for b in lows.indices {
                let span = floorDiv(highs[b], divisor) &- floorDiv(lows[b], divisor)
                bits += BitPacking.width(UInt64(bitPattern: span)) * Swift.min(mb, count - b * mb)
            }
            if k == 0 { return bits }
            let held = histogram[0..<k].reduce(0, +)
            return bits + held * BitPacking.width(UInt64(divisor - 1)) + 32 * lows.count + 48
        }
        var best = 0, bestCost = cost(0)
        for k in 1...maxShift where histogram[k...].reduce(0, +) > 0 {
            let candidateCost = cost(k)
            if candidateCost < bestCost {
                best = k
                bestCost = candidateCost
            }
        }
        return best
    }

    /// Splits `p.m` by `10^best`: quotients in `p.m`, the remainders of the rows whose shift is
    /// below `best` in `p.remainders`, and each miniblock's count of earlier remainders in `p.before`.
    private static func applySplit(_ p: inout Prepared, _ v: [Int64], rows: Range<Int>, best: Int, maxShift: Int,
                                   held: Int, miniblocks: Int) {
        let count = rows.count, mb = FrameOfReference.miniblockRows
        let divisor = power(best), top = UInt64(maxShift)
        p.split = best
        var remainders: [UInt64] = [], before: [UInt32] = []
        remainders.reserveCapacity(held)
        before.reserveCapacity(miniblocks)
        // SAFETY: the pointers are used only inside these closures; see the note below for bounds.
        v.withUnsafeBufferPointer { all in
            p.m.withUnsafeMutableBufferPointer { m in
                p.shifts.withUnsafeMutableBufferPointer { shifts in
                    // SAFETY: `m` and `shifts` hold one value per row of `rows`, inside `v`.
                    let src = UnsafeBufferPointer(rebasing: all[rows])
                    for k in 0..<count {
                        if k % mb == 0 { before.append(UInt32(remainders.count)) }
                        let mantissa = m[k], quotient = floorDiv(mantissa, divisor)
                        if src[k] == RowBatch.null {
                            shifts[k] = top
                        } else if Int(shifts[k]) < best {
                            remainders.append(UInt64(mantissa &- quotient &* divisor))
                        }
                        m[k] = quotient
                    }
                }
            }
        }
        p.remainders = remainders
        p.before = before
    }

    /// Appends the split header and remainders of a prepared split chunk.
    static func writeRemainders(_ p: Prepared, into w: inout ByteWriter) {
        let width = BitPacking.width(UInt64(power(p.split) - 1))
        w.u8(UInt8(p.split))
        w.u8(UInt8(width))
        w.u32(UInt32(p.remainders.count))
        for b in p.before { w.u32(b) }
        // SAFETY: `$0` spans the remainders' count values and does not escape the closure.
        p.remainders.withUnsafeBufferPointer { BitPacking.pack($0, width: width, into: &w.bytes) }
    }

    /// Reads what ``writeRemainders`` wrote, checked against the chunk's scale and rows.
    static func readRemainders(_ r: inout ByteReader, count: Int, scale: Int) throws(QuakeError) -> Remainders {
        // header reads go through ByteReader; `before` and `packed` are views it checked
        let digits = Int(try r.u8()), width = Int(try r.u8()), held = Int(try r.u32())
        guard digits >= 1, digits <= scale, digits < 19, width == BitPacking.width(UInt64(power(digits) - 1)),
              held <= count else {
            throw .corrupt("split decimal chunk: \(digits) digits, \(width) bits, \(held) remainders")
        }
        let blocks = (count + FrameOfReference.miniblockRows - 1) / FrameOfReference.miniblockRows
        let before = try r.take(4 * blocks)
        let packed = PackedRun(try r.take(BitPacking.bytes(held, width: width)), width: width)
        let remainders = Remainders(k: digits, width: width, count: held, before: before, packed: packed)
        var previous = 0
        // b < blocks, so each first(ofMiniblock:) load lies in the 4 * blocks bytes of `before`
        for b in 0..<blocks {
            let remaindersBefore = remainders.first(ofMiniblock: b)
            guard remaindersBefore >= previous, remaindersBefore <= held, b > 0 || remaindersBefore == 0 else {
                throw .corrupt("split decimal chunk: remainder counts")
            }
            previous = remaindersBefore
        }
        return remainders
    }

    /// The shifts of `rows`, unpacked.
    static func shifts(_ p: Parsed, _ rows: Range<Int>) -> [UInt64] {
        var shifts = [UInt64](repeating: 0, count: rows.count)
        if p.shiftWidth != 0, !rows.isEmpty {
            // SAFETY: rows is non-empty (so baseAddress is non-nil) and lies in 0..<count; p.shifts holds the
            // packed run of count rows (parse checked its size).
            shifts.withUnsafeMutableBufferPointer { b in
                // SAFETY: `b` holds rows.count values, one per row of `rows`, inside the chunk.
                p.shifts.unpack(rows, reference: 0, into: b.baseAddress!)
            }
        }
        return shifts
    }

    /// Turns the quotients `m` of `rows` into the normalized `M`, given the rows' shifts.
    static func restore(_ m: inout [Int64], _ p: Parsed, _ t: Remainders, rows: Range<Int>,
                        shifts: [UInt64]) throws(QuakeError) {
        assert(rows.lowerBound >= 0 && m.count == rows.count && shifts.count == rows.count,
               "restore takes one quotient and one shift per row")
        guard !rows.isEmpty else { return }
        let mb = FrameOfReference.miniblockRows
        let blockStart = rows.lowerBound / mb * mb
        var index = t.first(ofMiniblock: rows.lowerBound / mb)
        for s in Self.shifts(p, blockStart..<rows.lowerBound) where Int(s) < t.k { index += 1 }
        let unit = t.unit, digits = UInt64(t.k)
        let mask = t.packed.mask
        // readRemainders checked the run holds t.count values (width >= 4: at least two words)
        guard t.packed.byteCount > 0 else { throw .corrupt("split decimal chunk: no remainders") }
        var position = 0
        while position < m.count {
            let row = rows.lowerBound + position
            if position > 0 { index = t.first(ofMiniblock: row / mb) }
            let end = Swift.min(m.count, position + mb - row % mb)
            // every remainder this miniblock can take lies inside the packed run
            var held = 0
            for j in position..<end where shifts[j] < digits { held += 1 }
            guard index + held <= t.count else { throw .corrupt("split decimal chunk: a remainder past the last") }
            for j in position..<end {
                // index <= t.count here (checked above; below it for every row that takes a
                // remainder), and PackedRun.word(atBit:) at a value's first bit, or at the run's
                // end bit, stays inside the run and its spare trailing word; rows without one add 0
                let bit = index &* t.width
                let word = t.packed.word(atBit: bit)
                let takes = shifts[j] < digits
                let remainder = takes ? word & mask : 0
                m[j] = m[j] &* unit &+ Int64(bitPattern: remainder)
                index &+= takes ? 1 : 0
            }
            position = end
        }
    }

    /// Whether rows on the edge quotient `floor(l / 10^k)` (low) or `floor(h / 10^k)` (high)
    /// may lie outside `l...h` on their whole `M`, and must be read whole.
    static func edges(_ t: Remainders, _ l: Int64, _ h: Int64) -> (low: Bool, high: Bool) {
        let unit = t.unit
        let ql = floorDiv(l, unit), qh = floorDiv(h, unit)
        return (l != ql &* unit, h != qh &* unit &+ (unit - 1))
    }

    /// The rows of `rows` (or of `among`, ascending, when given) whose whole `M` lies in
    /// `l...h`, in one pass over the packed quotients that also lists the rows on an edge
    /// quotient, which alone are then read whole; nil when a row of `among` lies past the chunk.
    static func select(_ rows: Range<Int>, among: [UInt32]? = nil, _ p: Parsed, _ t: Remainders,
                       _ body: FrameOfReference.Body, _ l: Int64, _ h: Int64) throws(QuakeError) -> [UInt32]? {
        guard let (hits, edgeRows) = packedHits(rows, among: among, t, body, l, h) else { return nil }
        guard !edgeRows.isEmpty else { return hits }
        let failing = try failingEdgeRows(edgeRows, p, t, body, l, h)
        guard !failing.isEmpty else { return hits }
        return removing(failing, from: hits)
    }

    /// The pass of ``select(_:among:_:_:_:_:_:)`` over the packed quotients: the rows kept and the
    /// rows on an edge quotient; nil when a row of `among` lies past the chunk.
    private static func packedHits(_ rows: Range<Int>, among: [UInt32]?, _ t: Remainders,
                                   _ body: FrameOfReference.Body, _ l: Int64,
                                   _ h: Int64) -> (hits: [UInt32], edgeRows: [UInt32])? {
        let unit = t.unit
        let (low, high) = edges(t, l, h)
        let capacity = among?.count ?? rows.count
        var edgeRows: [UInt32] = []
        var hits: [UInt32] = []
        var ok = true
        // SAFETY: `e` lives only inside this closure; its first edgeCount slots are the ones select wrote.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: low || high ? capacity : 0) { e in
            var edgeCount = 0
            hits = [UInt32](uninitializedCount: capacity) { buf, count in
                // SAFETY: buf and e (when edges are listed) have room for capacity rows, as select
                // requires; select initializes e[0..<edgeCount] only.
                guard let out = buf.baseAddress else {
                    count = 0
                    return
                }
                let ql = floorDiv(l, unit), qh = floorDiv(h, unit), listed = low || high ? e.baseAddress : nil
                if let among {
                    let kept = body.select(among: among, ql, qh, into: out, edges: listed, edgeLow: low,
                                           edgeHigh: high, edgeCount: &edgeCount)
                    ok = kept != nil
                    count = kept ?? 0
                } else {
                    count = body.select(rows, ql, qh, into: out, edges: listed, edgeLow: low, edgeHigh: high,
                                        edgeCount: &edgeCount)
                }
            }
            assert(edgeCount <= e.count, "more edge rows than the room given")
            // SAFETY: select wrote e[0..<edgeCount] (edgeCount <= count = e.count when listed, else 0).
            edgeRows = Array(UnsafeBufferPointer(rebasing: e[0..<edgeCount]))
        }
        guard ok else { return nil }
        return (hits, edgeRows)
    }

    /// The rows of `edgeRows` (ascending) whose whole `M` lies outside `l...h`.
    private static func failingEdgeRows(_ edgeRows: [UInt32], _ p: Parsed, _ t: Remainders,
                                        _ body: FrameOfReference.Body, _ l: Int64,
                                        _ h: Int64) throws(QuakeError) -> [UInt32] {
        var failing: [UInt32] = []
        if let first = edgeRows.first, let last = edgeRows.last, edgeRows.count > 64 {
            // many rows on an edge quotient (values crowded at the bound): the stretch holding them
            // restored once, not each row alone from its miniblock's start
            let span = Int(first)..<(Int(last) + 1)
            guard span.upperBound <= body.count else {
                throw .corrupt("split decimal chunk: an edge row past the chunk")
            }
            var values = [Int64](repeating: 0, count: span.count)
            // SAFETY: `values` holds span.count slots, the rows decode writes; span lies in 0..<body.count.
            values.withUnsafeMutableBufferPointer { buffer in
                if let base = buffer.baseAddress { body.decode(span, into: base) }
            }
            try restore(&values, p, t, rows: span, shifts: shifts(p, span))
            for edgeRow in edgeRows {
                let value = values[Int(edgeRow) - span.lowerBound]
                if value < l || value > h { failing.append(edgeRow) }
            }
        } else {
            for edgeRow in edgeRows {
                let value = try whole(Int(edgeRow), p, t, body)
                if value < l || value > h { failing.append(edgeRow) }
            }
        }
        return failing
    }

    /// `hits` (ascending) without the rows of `failing` (ascending).
    private static func removing(_ failing: [UInt32], from hits: [UInt32]) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(hits.count)
        var position = 0
        for r in hits {
            while position < failing.count && failing[position] < r { position += 1 }
            if position < failing.count && failing[position] == r { continue }
            out.append(r)
        }
        return out
    }

    /// Row `row`'s normalized `M`, read alone.
    static func whole(_ row: Int, _ p: Parsed, _ t: Remainders,
                      _ body: FrameOfReference.Body) throws(QuakeError) -> Int64 {
        var quotient: Int64 = 0
        // SAFETY: &quotient points at one local Int64 for this call; decode of one row writes exactly it.
        if let single = body.value(row) { quotient = single } else { body.decode(row..<(row + 1), into: &quotient) }
        var mantissas = [quotient]
        try restore(&mantissas, p, t, rows: row..<(row + 1), shifts: shifts(p, row..<(row + 1)))
        return mantissas[0]
    }
}
