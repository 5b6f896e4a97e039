/// Hot decimal columns (latitude, longitude, depth, mag, ...): every value is brought to the
/// chunk's largest scale `S` (`M = mantissa * 10^(S - scale)`), the per-row scale shift is
/// bit-packed (0 bits when every row has one scale), and `M` goes through
/// ``FrameOfReference``. The written text still comes back exactly (`2.50` keeps its scale),
/// and a double is `Double(M) / 10^S`, the same correctly rounded value parsing gives.
///
/// Chunk: null header (flags: ``raw``, ``exactDoubles``), then unless all null:
/// `u8 S, u8 shift width`, packed shifts, `u32 n` and `n` u32 rows holding `-0`, then the body.
/// Values that cannot be brought to one scale in 62 bits are stored raw instead (flag ``raw``).
/// A chunk of mixed scales may be split (flag ``split``): see `ForDecimalCodec+Remainders.swift`.
package enum ForDecimalCodec: RangeSelectingCodec {
    package static let id = CodecID.forDecimal
    /// The body holds the stored `Int64` values, not normalized mantissas.
    package static let raw: UInt8 = 4
    /// Every `|M| <= 2^53`: `Double(M) / 10^S` is exact, and ranges can be decided on `M`.
    package static let exactDoubles: UInt8 = 8

    /// `10^k`, written out: a literal's storage is a constant in the binary.
    private static let pow10: [Int64] = [
        1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000, 10000000000, 100000000000,
        1000000000000, 10000000000000, 100000000000000, 1000000000000000, 10000000000000000, 100000000000000000,
        1000000000000000000
    ]
    private static let exactLimit: Int64 = 1 << 53

    struct Prepared {
        package var m: [Int64]
        package var shifts: [UInt64]
        package var negZero: [UInt32]
        package var scale: Int
        package var shiftWidth: Int
        package var raw: Bool
        package var exact: Bool
        package var stats: ChunkStats
        /// Digits split off (0: not split), and the remainders with their count per miniblock.
        var split = 0
        var remainders: [UInt64] = []
        var before: [UInt32] = []
    }

    private static func prepare(_ v: [Int64], rows: Range<Int>, splitting: Bool = true) -> Prepared {
        var m = [Int64](repeating: 0, count: rows.count), shifts = [UInt64](repeating: 0, count: rows.count)
        var scale = 0, nulls = 0, raw = false, exact = true, negZero: [UInt32] = []
        var maxShift = 0
        // the normalized mantissas' least and greatest, of the rows that are not null
        var mlo = Int64.max, mhi = Int64.min
        // SAFETY: `all`, `m` and `shifts` are used only inside these closures; see the note below for bounds.
        v.withUnsafeBufferPointer { all in
            // SAFETY: `rows` lies inside the batch column `v`; `m` and `shifts` hold `rows.count` values,
            // and every index below runs over `0..<rows.count`.
            let src = UnsafeBufferPointer(rebasing: all[rows])
            for x in src where x != RowBatch.null { scale = Swift.max(scale, Int(x & 31)) }
            // read once per chunk
            let powers = pow10
            m.withUnsafeMutableBufferPointer { m in
                shifts.withUnsafeMutableBufferPointer { shifts in
                    var prev: Int64 = 0, seen = false
                    for k in 0..<src.count {
                        let x = src[k]
                        if x == RowBatch.null { nulls += 1; m[k] = prev; continue }
                        let s = Int(x & 31), mant = x >> 6
                        let shift = scale - s
                        var big: Int64 = 0
                        if mant != 0 {
                            guard shift < powers.count else { raw = true; break }
                            let (r, o) = mant.multipliedReportingOverflow(by: powers[shift])
                            guard !o, r.magnitude < 1 << 62 else { raw = true; break }
                            big = r
                        }
                        if big.magnitude > UInt64(exactLimit) { exact = false }
                        if x & 32 != 0 { negZero.append(UInt32(k)) }
                        m[k] = big
                        shifts[k] = UInt64(shift)
                        if shift > maxShift { maxShift = shift }
                        if big < mlo { mlo = big }
                        if big > mhi { mhi = big }
                        if !seen { for j in 0..<k { m[j] = big }; seen = true }
                        prev = big
                    }
                }
            }
        }
        var p = Prepared(m: m, shifts: shifts, negZero: negZero, scale: scale, shiftWidth: 0, raw: raw, exact: exact,
                         stats: ChunkStats(nulls: nulls, min: 0, max: 0))
        var lo = Double.infinity, hi = -Double.infinity
        if p.exact && !p.raw {
            // min and max on the normalized mantissas: one division each instead of one a row
            // (-0.0 and 0.0 are one value to a zone map: both compare equal)
            if mlo <= mhi {
                lo = Double(mlo) / ScaledDecimal.pow10[p.scale]
                hi = Double(mhi) / ScaledDecimal.pow10[p.scale]
            }
        } else {
            for i in rows where v[i] != RowBatch.null {
                let d = ScaledDecimal.double(v[i])
                lo = Swift.min(lo, d); hi = Swift.max(hi, d)
            }
        }
        if p.raw {
            // the stored values themselves, nulls replaced by a neighbour
            var last: Int64 = 0
            var first = true
            for (k, i) in rows.enumerated() {
                if v[i] == RowBatch.null { p.m[k] = last; continue }
                if first { for j in 0..<k { p.m[j] = v[i] }; first = false }
                p.m[k] = v[i]; last = v[i]
            }
            p.stats.nulls = rows.reduce(0) { $0 + (v[$1] == RowBatch.null ? 1 : 0) }
            p.exact = false
            p.negZero = []
            p.scale = 0
            maxShift = 0
        }
        p.shiftWidth = BitPacking.width(UInt64(maxShift))
        if splitting && p.stats.nulls < rows.count { chooseSplit(&p, v, rows: rows, maxShift: maxShift) }
        if p.stats.nulls == rows.count {
            lo = .nan; hi = .nan
        }
        p.stats.min = Int64(bitPattern: lo.bitPattern)
        p.stats.max = Int64(bitPattern: hi.bitPattern)
        return p
    }

    package static func analyze(_ values: [Int64], rows: Range<Int>) -> Int {
        let p = prepare(values, rows: rows)
        let n = rows.count
        let bitmap = p.stats.nulls > 0 && p.stats.nulls < n ? (n + 7) / 8 : 0
        if p.stats.nulls == n { return 5 }
        let split = p.split == 0 ? 0 : 6 + 4 * p.before.count
            + BitPacking.bytes(p.remainders.count, width: BitPacking.width(UInt64(power(p.split) - 1)))
        return 5 + bitmap + 6 + BitPacking.bytes(n, width: p.shiftWidth) + 4 * p.negZero.count + split
            // SAFETY: `$0` spans p.m's count values and does not escape the closure.
            + GranuleSums.size(n) + p.m.withUnsafeBufferPointer { FrameOfReference.size($0) }
    }

    package static func encode(_ values: [Int64], rows: Range<Int>, into out: inout [UInt8]) -> ChunkStats {
        encode(values, rows: rows, splitting: true, into: &out)
    }

    /// Appends the chunk of `rows`; `splitting: false` keeps it unsplit (magnitudes: every
    /// top-N decodes them, and their split saves little).
    package static func encode(_ values: [Int64], rows: Range<Int>, splitting: Bool,
                               into out: inout [UInt8]) -> ChunkStats {
        let p = prepare(values, rows: rows, splitting: splitting)
        var w = ByteWriter()
        let lo = rows.lowerBound
        let flags = (p.raw ? raw : 0) | (p.exact ? exactDoubles : 0) | (p.split > 0 ? split : 0)
            | (p.stats.nulls < rows.count ? GranuleSums.flag : 0)
        _ = NullBitmap.write(rows.count, into: &w, extraFlags: flags) { values[lo + $0] == RowBatch.null }
        if p.stats.nulls == rows.count {
            out.append(contentsOf: w.bytes)
            return p.stats
        }
        w.u8(UInt8(p.scale))
        w.u8(UInt8(p.shiftWidth))
        // SAFETY: `$0` spans the shifts' count values and does not escape the closure.
        p.shifts.withUnsafeBufferPointer { BitPacking.pack($0, width: p.shiftWidth, into: &w.bytes) }
        w.u32(UInt32(p.negZero.count))
        for r in p.negZero { w.u32(r) }
        if p.split > 0 { writeRemainders(p, into: &w) }
        var body: [UInt8] = []
        // SAFETY: `$0` spans p.m's count values and does not escape the closure.
        p.m.withUnsafeBufferPointer { FrameOfReference.encode($0, into: &body) }
        GranuleSums.write(body: body, count: rows.count, into: &w)
        out.append(contentsOf: w.bytes)
        out.append(contentsOf: body)
        return p.stats
    }

    /// A parsed chunk.
    struct Parsed {
        package var flags: UInt8
        package var bitmap: ChunkBytes?
        package var scale = 0
        package var shiftWidth = 0
        /// The packed shifts (empty, of width 0, in an all-null chunk).
        package var shifts = PackedRun(.empty, width: 0)
        package var negZero: [UInt32] = []
        package var body: FrameOfReference.Body?
        var remainders: Remainders?
        /// The granule sums table (``GranuleSums``), when the chunk has one.
        var sums: ChunkBytes?
    }

    private static func parse(_ chunk: UnsafeRawBufferPointer, count: Int) throws(QuakeError) -> Parsed {
        // header reads go through ByteReader; the shifts, sums and body are views of `chunk` it
        // checked, and `chunk` outlives the Parsed value (it is used within the caller's call)
        var r = ByteReader(chunk)
        let (flags, bitmap) = try NullBitmap.read(&r, count: count)
        var p = Parsed(flags: flags, bitmap: bitmap)
        if flags & NullBitmap.allNull != 0 { return p }
        p.scale = Int(try r.u8())
        p.shiftWidth = Int(try r.u8())
        guard p.scale <= ScaledDecimal.maxScale, p.shiftWidth <= 5 else { throw .corrupt("decimal chunk scale \(p.scale)") }
        p.shifts = PackedRun(try r.take(BitPacking.bytes(count, width: p.shiftWidth)), width: p.shiftWidth)
        let nz = Int(try r.u32())
        guard nz <= count else { throw .corrupt("decimal chunk lists \(nz) negative zeros") }
        p.negZero = try r.raw(nz, as: UInt32.self).map { UInt32(littleEndian: $0) }
        for z in p.negZero where Int(z) >= count { throw .corrupt("decimal chunk: negative zero at row \(z)") }
        guard flags & ~(NullBitmap.hasNulls | NullBitmap.allNull | raw | exactDoubles | split | GranuleSums.flag) == 0,
              flags & split == 0 || flags & raw == 0 else { throw .corrupt("decimal chunk flags \(flags)") }
        if flags & split != 0 { p.remainders = try readRemainders(&r, count: count, scale: p.scale) }
        if flags & GranuleSums.flag != 0 { p.sums = try GranuleSums.read(&r, count: count) }
        // the body runs from the reader's position to the chunk's end (rest() checks the position)
        p.body = try FrameOfReference.Body(try r.rest(), count: count)
        return p
    }

    /// The chunk's granule sums with its body; nil for a chunk without them (older, or all null).
    package static func granuleSums(_ chunk: UnsafeRawBufferPointer, count: Int)
        throws(QuakeError) -> GranuleSums.Table? {
        let p = try parse(chunk, count: count)
        guard let sums = p.sums, let body = p.body else { return nil }
        return GranuleSums.Table(sums: sums, body: body, chunk: ChunkBytes(chunk))
    }

    private static func mantissas(_ p: Parsed, _ rows: Range<Int>) -> [Int64] {
        // SAFETY: callers pass rows inside 0..<count (decode's guard), the rows p.body was checked for.
        [Int64](uninitializedCount: rows.count) { buf, n in
            // SAFETY: buf has rows.count slots; decode writes exactly that many.
            if let b = buf.baseAddress, let body = p.body { body.decode(rows, into: b) }
            n = rows.count
        }
    }

    package static func decode(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>,
                       as form: VectorForm) throws(QuakeError) -> ColumnVector {
        guard rows.lowerBound >= 0, rows.upperBound <= count else { throw .corrupt("row range \(rows) outside chunk") }
        let p = try parse(chunk, count: count)
        let n = rows.count, base = rows.lowerBound
        if p.flags & NullBitmap.allNull != 0 {
            return form == .doubles ? .doubles([Double](repeating: .nan, count: n)) : .ints([Int64](repeating: RowBatch.null, count: n))
        }
        var m = mantissas(p, rows)
        let exactOut = form == .doubles && p.flags & exactDoubles != 0
        let shifts = p.flags & raw == 0 && (!exactOut || p.remainders != nil) ? Self.shifts(p, rows) : []
        if let t = p.remainders { try restore(&m, p, t, rows: rows, shifts: shifts) }
        if exactOut {
            // SAFETY: `buf` holds n slots and i < n, so all n are initialised; it does not escape the closure.
            var out = [Double](uninitializedCount: n) { buf, k in
                let div = ScaledDecimal.pow10[p.scale]
                for i in 0..<n { buf[i] = Double(m[i]) / div }
                k = n
            }
            for z in p.negZero where rows.contains(Int(z)) { out[Int(z) - base] = -0.0 }
            // SAFETY: rows lie in 0..<count and the bitmap holds (count + 7) / 8 bytes.
            if let bm = p.bitmap { for i in rows where NullBitmap.isNull(bm, i) { out[i - base] = .nan } }
            return .doubles(out)
        }
        var out = m
        if p.flags & raw == 0 {
            for i in 0..<n {
                let shift = Int(truncatingIfNeeded: shifts[i])
                guard shift <= p.scale, shift >= 0, m[i] == 0 || shift < pow10.count else {
                    throw .corrupt("decimal chunk: scale shift \(shift)")
                }
                // constant divisors for the common shifts: no hardware division
                let mant: Int64
                switch shift {
                case 0: mant = m[i]
                case 1: mant = m[i] / 10
                case 2: mant = m[i] / 100
                case 3: mant = m[i] / 1000
                default: mant = m[i] / pow10[shift]
                }
                out[i] = mant &<< 6 | Int64(p.scale - shift)
            }
            for z in p.negZero where rows.contains(Int(z)) { out[Int(z) - base] |= 32 }
        }
        // SAFETY: rows lie in 0..<count and the bitmap holds (count + 7) / 8 bytes.
        if let bm = p.bitmap { for i in rows where NullBitmap.isNull(bm, i) { out[i - base] = RowBatch.null } }
        if form == .doubles { return .doubles(out.map { $0 == RowBatch.null ? .nan : ScaledDecimal.double($0) }) }
        return .ints(out)
    }

    /// The smallest `M` (lower end) or largest `M` (upper end) whose double passes `b`, found
    /// from an estimate and corrected step by step (`Double(M) / 10^S` is monotonic in `M`).
    private static func edge(_ b: RangeBound, scale: Int, lower: Bool) -> Int64? {
        let div = ScaledDecimal.pow10[scale]
        let cap = exactLimit + 2
        func pass(_ m: Int64) -> Bool {
            let d = Double(m) / div
            if lower { return b.inclusive ? d >= b.value : d > b.value }
            return b.inclusive ? d <= b.value : d < b.value
        }
        if b.value.isNaN { return nil }
        let est = b.value * div
        var c: Int64 = est >= Double(cap) ? cap : est <= -Double(cap) ? -cap : Int64(est.rounded(.down))
        var steps = 0
        if lower {
            while c > -cap && pass(c - 1) { c -= 1; steps += 1; if steps > 64 { return nil } }
            while c < cap && !pass(c) { c += 1; steps += 1; if steps > 64 { return nil } }
        } else {
            while c < cap && pass(c + 1) { c += 1; steps += 1; if steps > 64 { return nil } }
            while c > -cap && !pass(c) { c -= 1; steps += 1; if steps > 64 { return nil } }
        }
        return c
    }

    package static func select(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>, _ range: RangePredicate,
                       into out: inout [UInt32]) throws(QuakeError) -> Bool {
        guard case .number(let lo, let hi) = range, rows.lowerBound >= 0, rows.upperBound <= count else { return false }
        let p = try parse(chunk, count: count)
        if p.flags & NullBitmap.allNull != 0 { return true }
        guard p.flags & exactDoubles != 0, p.flags & raw == 0 else { return false }
        var l = -exactLimit - 2, h = exactLimit + 2
        if let lo { guard let e = edge(lo, scale: p.scale, lower: true) else { return false }; l = e }
        if let hi { guard let e = edge(hi, scale: p.scale, lower: false) else { return false }; h = e }
        if l > h { return true }
        guard let body = p.body else { return false }
        var hits: [UInt32]
        if let t = p.remainders {
            hits = try select(rows, p, t, body, l, h) ?? []
        } else {
            // SAFETY: rows lie in 0..<count (the guard at the top), the rows the body was checked for.
            hits = [UInt32](uninitializedCount: rows.count) { buf, n in
                // SAFETY: buf has room for rows.count rows, as select requires.
                n = buf.baseAddress.map { body.select(rows, l, h, into: $0) } ?? 0
            }
        }
        // SAFETY: every hit is a chunk row below count; the bitmap holds (count + 7) / 8 bytes.
        if let bm = p.bitmap { hits.removeAll { NullBitmap.isNull(bm, Int($0)) } }
        out.append(contentsOf: hits)
        return true
    }

    /// The rows of `among` (ascending chunk rows) whose value lies in `range`, each compared on
    /// its packed mantissa: for a selection already narrowed by another column, without
    /// unpacking or converting the rest. False when the chunk cannot (as ``select``) or a row
    /// lies past it; `out` is then left empty.
    /// - Complexity: O(among.count), plus one miniblock decoded per delta-coded miniblock touched.
    package static func select(_ chunk: UnsafeRawBufferPointer, count: Int, among: [UInt32], _ range: RangePredicate,
                               into out: inout [UInt32]) throws(QuakeError) -> Bool {
        guard case .number(let lo, let hi) = range else { return false }
        let p = try parse(chunk, count: count)
        if p.flags & NullBitmap.allNull != 0 { return true }
        guard p.flags & exactDoubles != 0, p.flags & raw == 0, let body = p.body else { return false }
        var l = -exactLimit - 2, h = exactLimit + 2
        if let lo { guard let e = edge(lo, scale: p.scale, lower: true) else { return false }; l = e }
        if let hi { guard let e = edge(hi, scale: p.scale, lower: false) else { return false }; h = e }
        if l > h { return true }
        var ok = true
        var hits: [UInt32]
        if let t = p.remainders {
            let found = try select(0..<count, among: among, p, t, body, l, h)
            ok = found != nil
            hits = found ?? []
        } else {
            // SAFETY: body.select(among:) reads only rows below count (it returns nil at the first past it).
            hits = [UInt32](uninitializedCount: among.count) { buf, n in
                // SAFETY: buf has room for among.count rows, as select(among:) requires.
                let k = buf.baseAddress.map { body.select(among: among, l, h, into: $0) } ?? 0
                ok = k != nil
                n = k ?? 0
            }
        }
        guard ok else { out.removeAll(); return false }
        // SAFETY: every hit is a row below count (select(among:) checked it); the bitmap holds (count + 7) / 8 bytes.
        if let bm = p.bitmap { hits.removeAll { NullBitmap.isNull(bm, Int($0)) } }
        out.append(contentsOf: hits)
        return true
    }
}
