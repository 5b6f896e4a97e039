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
        var prepared: Prepared, maxShift: Int
        let mantissaBounds: (least: Int64, greatest: Int64)
        (prepared, mantissaBounds, maxShift) = normalize(v, rows: rows)
        var (lo, hi) = zoneBounds(prepared, v, rows: rows, mantissaBounds: mantissaBounds)
        if prepared.raw {
            storeRaw(&prepared, v, rows: rows)
            maxShift = 0
        }
        prepared.shiftWidth = BitPacking.width(UInt64(maxShift))
        if splitting && prepared.stats.nulls < rows.count { chooseSplit(&prepared, v, rows: rows, maxShift: maxShift) }
        if prepared.stats.nulls == rows.count {
            lo = .nan
            hi = .nan
        }
        prepared.stats.min = Int64(bitPattern: lo.bitPattern)
        prepared.stats.max = Int64(bitPattern: hi.bitPattern)
        return prepared
    }

    /// The rows' mantissas normalized to one scale, with their shifts, nulls and negative zeros;
    /// `raw` when a value does not fit. Also the least and greatest mantissa of the rows that are
    /// not null, and the greatest shift.
    private static func normalize(_ v: [Int64], rows: Range<Int>)
        -> (prepared: Prepared, mantissaBounds: (least: Int64, greatest: Int64), maxShift: Int) {
        var mantissas = [Int64](repeating: 0, count: rows.count), shifts = [UInt64](repeating: 0, count: rows.count)
        var scale = 0, nulls = 0, maxShift = 0, raw = false, exact = true, negZero: [UInt32] = []
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
            mantissas.withUnsafeMutableBufferPointer { m in
                shifts.withUnsafeMutableBufferPointer { shifts in
                    var prev: Int64 = 0, seen = false
                    for k in 0..<src.count {
                        let value = src[k]
                        if value == RowBatch.null {
                            nulls += 1
                            m[k] = prev
                            continue
                        }
                        let valueScale = Int(value & 31), mant = value >> 6
                        let shift = scale - valueScale
                        var big: Int64 = 0
                        if mant != 0 {
                            guard shift < powers.count else {
                                raw = true
                                break
                            }
                            let (product, overflow) = mant.multipliedReportingOverflow(by: powers[shift])
                            guard !overflow, product.magnitude < 1 << 62 else {
                                raw = true
                                break
                            }
                            big = product
                        }
                        if big.magnitude > UInt64(exactLimit) { exact = false }
                        if value & 32 != 0 { negZero.append(UInt32(k)) }
                        m[k] = big
                        shifts[k] = UInt64(shift)
                        if shift > maxShift { maxShift = shift }
                        if big < mlo { mlo = big }
                        if big > mhi { mhi = big }
                        if !seen {
                            for j in 0..<k { m[j] = big }
                            seen = true
                        }
                        prev = big
                    }
                }
            }
        }
        let prepared = Prepared(m: mantissas, shifts: shifts, negZero: negZero, scale: scale, shiftWidth: 0,
                                raw: raw, exact: exact, stats: ChunkStats(nulls: nulls, min: 0, max: 0))
        return (prepared, (mlo, mhi), maxShift)
    }

    /// The least and greatest value of the rows that are not null, as doubles (infinities when none).
    private static func zoneBounds(_ prepared: Prepared, _ v: [Int64], rows: Range<Int>,
                                   mantissaBounds: (least: Int64, greatest: Int64)) -> (Double, Double) {
        let (mlo, mhi) = mantissaBounds
        var lo = Double.infinity, hi = -Double.infinity
        if prepared.exact && !prepared.raw {
            // min and max on the normalized mantissas: one division each instead of one a row
            // (-0.0 and 0.0 are one value to a zone map: both compare equal)
            if mlo <= mhi {
                lo = Double(mlo) / ScaledDecimal.pow10[prepared.scale]
                hi = Double(mhi) / ScaledDecimal.pow10[prepared.scale]
            }
        } else {
            for i in rows where v[i] != RowBatch.null {
                let decoded = ScaledDecimal.double(v[i])
                lo = Swift.min(lo, decoded)
                hi = Swift.max(hi, decoded)
            }
        }
        return (lo, hi)
    }

    /// Stores the values themselves in `prepared`, nulls replaced by a neighbour, for a chunk
    /// whose values do not normalize.
    private static func storeRaw(_ prepared: inout Prepared, _ v: [Int64], rows: Range<Int>) {
        var last: Int64 = 0
        var first = true
        for (k, i) in rows.enumerated() {
            if v[i] == RowBatch.null {
                prepared.m[k] = last
                continue
            }
            if first {
                for j in 0..<k { prepared.m[j] = v[i] }
                first = false
            }
            prepared.m[k] = v[i]
            last = v[i]
        }
        prepared.stats.nulls = rows.reduce(0) { $0 + (v[$1] == RowBatch.null ? 1 : 0) }
        prepared.exact = false
        prepared.negZero = []
        prepared.scale = 0
    }

    package static func analyze(_ values: [Int64], rows: Range<Int>) -> Int {
        let prepared = prepare(values, rows: rows)
        let count = rows.count
        let bitmap = prepared.stats.nulls > 0 && prepared.stats.nulls < count ? (count + 7) / 8 : 0
        if prepared.stats.nulls == count { return 5 }
        let split = prepared.split == 0 ? 0 : 6 + 4 * prepared.before.count
            + BitPacking.bytes(prepared.remainders.count, width: BitPacking.width(UInt64(power(prepared.split) - 1)))
        return 5 + bitmap + 6 + BitPacking.bytes(count, width: prepared.shiftWidth) + 4 * prepared.negZero.count + split
            // SAFETY: `$0` spans prepared.m's count values and does not escape the closure.
            + GranuleSums.size(count) + prepared.m.withUnsafeBufferPointer { FrameOfReference.size($0) }
    }

    package static func encode(_ values: [Int64], rows: Range<Int>, into out: inout [UInt8]) -> ChunkStats {
        encode(values, rows: rows, splitting: true, into: &out)
    }

    /// Appends the chunk of `rows`; `splitting: false` keeps it unsplit (magnitudes: every
    /// top-N decodes them, and their split saves little).
    package static func encode(_ values: [Int64], rows: Range<Int>, splitting: Bool,
                               into out: inout [UInt8]) -> ChunkStats {
        let prepared = prepare(values, rows: rows, splitting: splitting)
        var writer = ByteWriter()
        let lo = rows.lowerBound
        let flags = (prepared.raw ? raw : 0) | (prepared.exact ? exactDoubles : 0) | (prepared.split > 0 ? split : 0)
            | (prepared.stats.nulls < rows.count ? GranuleSums.flag : 0)
        _ = NullBitmap.write(rows.count, into: &writer, extraFlags: flags) { values[lo + $0] == RowBatch.null }
        if prepared.stats.nulls == rows.count {
            out.append(contentsOf: writer.bytes)
            return prepared.stats
        }
        writer.u8(UInt8(prepared.scale))
        writer.u8(UInt8(prepared.shiftWidth))
        // SAFETY: `$0` spans the shifts' count values and does not escape the closure.
        prepared.shifts.withUnsafeBufferPointer { BitPacking.pack($0, width: prepared.shiftWidth, into: &writer.bytes) }
        writer.u32(UInt32(prepared.negZero.count))
        for r in prepared.negZero { writer.u32(r) }
        if prepared.split > 0 { writeRemainders(prepared, into: &writer) }
        var body: [UInt8] = []
        // SAFETY: `$0` spans prepared.m's count values and does not escape the closure.
        prepared.m.withUnsafeBufferPointer { FrameOfReference.encode($0, into: &body) }
        GranuleSums.write(body: body, count: rows.count, into: &writer)
        out.append(contentsOf: writer.bytes)
        out.append(contentsOf: body)
        return prepared.stats
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
        var reader = ByteReader(chunk)
        let (flags, bitmap) = try NullBitmap.read(&reader, count: count)
        var parsed = Parsed(flags: flags, bitmap: bitmap)
        if flags & NullBitmap.allNull != 0 { return parsed }
        parsed.scale = Int(try reader.u8())
        parsed.shiftWidth = Int(try reader.u8())
        guard parsed.scale <= ScaledDecimal.maxScale, parsed.shiftWidth <= 5 else {
            throw .corrupt("decimal chunk scale \(parsed.scale)")
        }
        parsed.shifts = PackedRun(try reader.take(BitPacking.bytes(count, width: parsed.shiftWidth)),
                                  width: parsed.shiftWidth)
        let nz = Int(try reader.u32())
        guard nz <= count else { throw .corrupt("decimal chunk lists \(nz) negative zeros") }
        parsed.negZero = try reader.raw(nz, as: UInt32.self).map { UInt32(littleEndian: $0) }
        for z in parsed.negZero where Int(z) >= count { throw .corrupt("decimal chunk: negative zero at row \(z)") }
        guard flags & ~(NullBitmap.hasNulls | NullBitmap.allNull | raw | exactDoubles | split | GranuleSums.flag) == 0,
              flags & split == 0 || flags & raw == 0 else { throw .corrupt("decimal chunk flags \(flags)") }
        if flags & split != 0 { parsed.remainders = try readRemainders(&reader, count: count, scale: parsed.scale) }
        if flags & GranuleSums.flag != 0 { parsed.sums = try GranuleSums.read(&reader, count: count) }
        // the body runs from the reader's position to the chunk's end (rest() checks the position)
        parsed.body = try FrameOfReference.Body(try reader.rest(), count: count)
        return parsed
    }

    /// The chunk's granule sums with its body; nil for a chunk without them (older, or all null).
    /// The chunk's scale: every value it holds has at most this many decimals (0 for an all-null
    /// chunk).
    package static func scale(_ chunk: UnsafeRawBufferPointer, count: Int) throws(QuakeError) -> Int {
        try parse(chunk, count: count).scale
    }

    package static func granuleSums(_ chunk: UnsafeRawBufferPointer, count: Int)
        throws(QuakeError) -> GranuleSums.Table? {
        let parsed = try parse(chunk, count: count)
        guard let sums = parsed.sums, let body = parsed.body else { return nil }
        return GranuleSums.Table(sums: sums, body: body, chunk: ChunkBytes(chunk))
    }

    private static func mantissas(_ p: Parsed, _ rows: Range<Int>) -> [Int64] {
        // SAFETY: callers pass rows inside 0..<count (decode's guard), the rows p.body was checked for.
        [Int64](uninitializedCount: rows.count) { buf, n in
            // SAFETY: buf has rows.count slots; decode writes exactly that many.
            if let base = buf.baseAddress, let body = p.body { body.decode(rows, into: base) }
            n = rows.count
        }
    }

    package static func decode(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>,
                       as form: VectorForm) throws(QuakeError) -> ColumnVector {
        guard rows.lowerBound >= 0, rows.upperBound <= count else { throw .corrupt("row range \(rows) outside chunk") }
        let parsed = try parse(chunk, count: count)
        let count = rows.count, base = rows.lowerBound
        if parsed.flags & NullBitmap.allNull != 0 {
            return form == .doubles ? .doubles([Double](repeating: .nan, count: count))
                : .ints([Int64](repeating: RowBatch.null, count: count))
        }
        var values = mantissas(parsed, rows)
        let exactOut = form == .doubles && parsed.flags & exactDoubles != 0
        let shifts = parsed.flags & raw == 0 && (!exactOut || parsed.remainders != nil) ? Self.shifts(parsed, rows) : []
        if let remainders = parsed.remainders { try restore(&values, parsed, remainders, rows: rows, shifts: shifts) }
        if exactOut {
            // SAFETY: `buf` holds count slots and i < count, so all count are initialised; it does not escape the
            // closure.
            var out = [Double](uninitializedCount: count) { buf, k in
                let div = ScaledDecimal.pow10[parsed.scale]
                for i in 0..<count { buf[i] = Double(values[i]) / div }
                k = count
            }
            for z in parsed.negZero where rows.contains(Int(z)) { out[Int(z) - base] = -0.0 }
            // SAFETY: rows lie in 0..<count and the bitmap holds (count + 7) / 8 bytes.
            if let bm = parsed.bitmap { for i in rows where NullBitmap.isNull(bm, i) { out[i - base] = .nan } }
            return .doubles(out)
        }
        var out = values
        if parsed.flags & raw == 0 {
            for i in 0..<count {
                let shift = Int(truncatingIfNeeded: shifts[i])
                guard shift <= parsed.scale, shift >= 0, values[i] == 0 || shift < pow10.count else {
                    throw .corrupt("decimal chunk: scale shift \(shift)")
                }
                // constant divisors for the common shifts: no hardware division
                let mant: Int64
                switch shift {
                case 0: mant = values[i]
                case 1: mant = values[i] / 10
                case 2: mant = values[i] / 100
                case 3: mant = values[i] / 1000
                default: mant = values[i] / pow10[shift]
                }
                out[i] = mant &<< 6 | Int64(parsed.scale - shift)
            }
            for z in parsed.negZero where rows.contains(Int(z)) { out[Int(z) - base] |= 32 }
        }
        // SAFETY: rows lie in 0..<count and the bitmap holds (count + 7) / 8 bytes.
        if let bm = parsed.bitmap { for i in rows where NullBitmap.isNull(bm, i) { out[i - base] = RowBatch.null } }
        if form == .doubles { return .doubles(out.map { $0 == RowBatch.null ? .nan : ScaledDecimal.double($0) }) }
        return .ints(out)
    }

    /// The smallest `M` (lower end) or largest `M` (upper end) whose double passes `b`, found
    /// from an estimate and corrected step by step (`Double(M) / 10^S` is monotonic in `M`).
    private static func edge(_ b: RangeBound, scale: Int, lower: Bool) -> Int64? {
        let div = ScaledDecimal.pow10[scale]
        let cap = exactLimit + 2
        func pass(_ m: Int64) -> Bool {
            let estimate = Double(m) / div
            if lower { return b.inclusive ? estimate >= b.value : estimate > b.value }
            return b.inclusive ? estimate <= b.value : estimate < b.value
        }
        if b.value.isNaN { return nil }
        let est = b.value * div
        var candidate: Int64 = est >= Double(cap) ? cap : est <= -Double(cap) ? -cap : Int64(est.rounded(.down))
        var steps = 0
        if lower {
            while candidate > -cap && pass(candidate - 1) {
                candidate -= 1
                steps += 1
                if steps > 64 { return nil }
            }
            while candidate < cap && !pass(candidate) {
                candidate += 1
                steps += 1
                if steps > 64 { return nil }
            }
        } else {
            while candidate < cap && pass(candidate + 1) {
                candidate += 1
                steps += 1
                if steps > 64 { return nil }
            }
            while candidate > -cap && !pass(candidate) {
                candidate -= 1
                steps += 1
                if steps > 64 { return nil }
            }
        }
        return candidate
    }

    package static func select(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>, _ range: RangePredicate,
                       into out: inout [UInt32]) throws(QuakeError) -> Bool {
        guard case .number(let lo, let hi) = range, rows.lowerBound >= 0, rows.upperBound <= count else { return false }
        let parsed = try parse(chunk, count: count)
        if parsed.flags & NullBitmap.allNull != 0 { return true }
        guard parsed.flags & exactDoubles != 0, parsed.flags & raw == 0 else { return false }
        var lowMantissa = -exactLimit - 2, highMantissa = exactLimit + 2
        if let lo {
            guard let bound = edge(lo, scale: parsed.scale, lower: true) else { return false }
            lowMantissa = bound
        }
        if let hi {
            guard let bound = edge(hi, scale: parsed.scale, lower: false) else { return false }
            highMantissa = bound
        }
        if lowMantissa > highMantissa { return true }
        guard let body = parsed.body else { return false }
        var hits: [UInt32]
        if let remainders = parsed.remainders {
            hits = try select(rows, parsed, remainders, body, lowMantissa, highMantissa) ?? []
        } else {
            // SAFETY: rows lie in 0..<count (the guard at the top), the rows the body was checked for.
            hits = [UInt32](uninitializedCount: rows.count) { buf, n in
                // SAFETY: buf has room for rows.count rows, as select requires.
                n = buf.baseAddress.map { body.select(rows, lowMantissa, highMantissa, into: $0) } ?? 0
            }
        }
        // SAFETY: every hit is a chunk row below count; the bitmap holds (count + 7) / 8 bytes.
        if let bm = parsed.bitmap { hits.removeAll { NullBitmap.isNull(bm, Int($0)) } }
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
        let parsed = try parse(chunk, count: count)
        if parsed.flags & NullBitmap.allNull != 0 { return true }
        guard parsed.flags & exactDoubles != 0, parsed.flags & raw == 0, let body = parsed.body else { return false }
        var lowMantissa = -exactLimit - 2, highMantissa = exactLimit + 2
        if let lo {
            guard let bound = edge(lo, scale: parsed.scale, lower: true) else { return false }
            lowMantissa = bound
        }
        if let hi {
            guard let bound = edge(hi, scale: parsed.scale, lower: false) else { return false }
            highMantissa = bound
        }
        if lowMantissa > highMantissa { return true }
        var ok = true
        var hits: [UInt32]
        if let remainders = parsed.remainders {
            let found = try select(0..<count, among: among, parsed, remainders, body, lowMantissa, highMantissa)
            ok = found != nil
            hits = found ?? []
        } else {
            // SAFETY: body.select(among:) reads only rows below count (it returns nil at the first past it).
            hits = [UInt32](uninitializedCount: among.count) { buf, n in
                // SAFETY: buf has room for among.count rows, as select(among:) requires.
                let kept = buf.baseAddress.map { body.select(among: among, lowMantissa, highMantissa, into: $0) } ?? 0
                ok = kept != nil
                n = kept ?? 0
            }
        }
        guard ok else {
            out.removeAll()
            return false
        }
        // SAFETY: every hit is a row below count (select(among:) checked it); the bitmap holds (count + 7) / 8 bytes.
        if let bm = parsed.bitmap { hits.removeAll { NullBitmap.isNull(bm, Int($0)) } }
        out.append(contentsOf: hits)
        return true
    }
}
