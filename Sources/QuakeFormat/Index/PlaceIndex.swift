/// The place access path of a partition: for every scan unit (a granule cut at block edges), the
/// locality codes of the block's place dictionary that occur in it, each with the least and
/// greatest magnitude of its rows. A place search top-N by magnitude then skips the units where
/// no matching locality occurs, and bounds the rest by the best magnitude of the matching ones
/// rather than of the whole unit.
///
/// Stored in the partition file's data area, named by the directory (offset, length, checksum),
/// and read only by the queries that use it:
/// ```
/// u32 units, u32 (units + 1) entry offsets, then per entry: u32 code, u32 least | greatest << 16
/// ```
/// Magnitudes are indexes into the granule index's distinct values; `noMag` for a locality whose
/// rows in the unit have none. Entries of a unit are sorted by code.
package struct PlaceIndex: Sendable {
    package static let noMag = UInt16.max

    package struct Entry: Sendable, Equatable {
        package var code: UInt32
        package var least: UInt16
        package var greatest: UInt16
    }

    /// Units in order: block by block, granules in row order within each.
    package let unitCount: Int
    private let offsets: [UInt32]
    private let entries: [Entry]
    /// Per block, the ordinal of its first unit.
    private let blockFirstUnit: [Int]
    private let blockRows: Int

    /// The scan units of a partition: (block, granule, rows) in order.
    package static func units(rows: Int, blockRows: Int) -> [(block: Int, granule: Int, rows: Range<Int>)] {
        var out: [(Int, Int, Range<Int>)] = []
        let granule = GranuleIndex.granuleRows
        var block = 0
        while block * blockRows < rows {
            let blockRange = (block * blockRows)..<Swift.min(rows, (block + 1) * blockRows)
            var unitStart = blockRange.lowerBound
            while unitStart < blockRange.upperBound {
                let unitEnd = Swift.min(blockRange.upperBound, (unitStart / granule + 1) * granule)
                out.append((block, unitStart / granule, unitStart..<unitEnd))
                unitStart = unitEnd
            }
            block += 1
        }
        return out
    }

    /// The index of a partition from its stored magnitudes (scaled decimals), the locality code
    /// of every row (as stored in the place chunks, block by block) and its granule index; nil
    /// when the granule index has no mag histogram.
    package static func encode(mags: [Int64], codes: [UInt32], blockRows: Int, granules: GranuleIndex) -> [UInt8]? {
        guard granules.hasMagHistogram, granules.magValues.count < Int(noMag), mags.count == codes.count else {
            return nil
        }
        let units = units(rows: mags.count, blockRows: blockRows)
        var writer = ByteWriter()
        writer.u32(UInt32(units.count))
        var body = ByteWriter()
        var offset: UInt32 = 0
        writer.u32(0)
        var encoder = UnitEncoder(values: granules.magValues)
        for u in units {
            offset += UInt32(encoder.encode(u.rows, mags: mags, codes: codes, codesStart: 0, into: &body))
            writer.u32(offset)
        }
        writer.bytes.append(contentsOf: body.bytes)
        return writer.bytes
    }

    /// Writes the entries of one scan unit at a time, with scratch kept from unit to unit.
    package struct UnitEncoder {
        let values: [Double]
        /// Each of `values`' index, by bit pattern: a row's magnitude is looked up, not bisected.
        private let table: MagnitudeTable
        private var least: [UInt16] = []
        private var greatest: [UInt16] = []
        private var seen: [Bool] = []
        private var touched: [UInt32] = []

        package init(values: [Double]) {
            self.values = values
            table = MagnitudeTable(codes: values)
        }

        /// Appends the entries of the unit of rows `rows` to `body`, and returns how many: the
        /// locality codes of those rows (`codes[row - codesStart]`) with their magnitudes' bounds.
        package mutating func encode(_ rows: Range<Int>, mags: [Int64], codes: [UInt32], codesStart: Int,
                                     into body: inout ByteWriter) -> Int {
            for r in rows {
                let code = Int(codes[r - codesStart])
                if code == 0 { continue }
                if code >= seen.count {
                    let more = code + 1 - seen.count
                    seen.append(contentsOf: repeatElement(false, count: more))
                    least.append(contentsOf: repeatElement(PlaceIndex.noMag, count: more))
                    greatest.append(contentsOf: repeatElement(PlaceIndex.noMag, count: more))
                }
                if !seen[code] {
                    seen[code] = true
                    touched.append(UInt32(code))
                }
                let magnitude = ScaledDecimal.double(mags[r]) + 0.0
                guard !magnitude.isNaN else { continue }
                // a value the histogram does not list (none, for rows it was built from) is bisected
                let magIndex = table.code(magnitude.bitPattern).map { UInt16(truncatingIfNeeded: $0) }
                    ?? UInt16(truncatingIfNeeded: PlaceIndex.index(of: magnitude, in: values))
                if least[code] == PlaceIndex.noMag || magIndex < least[code] { least[code] = magIndex }
                if greatest[code] == PlaceIndex.noMag || magIndex > greatest[code] { greatest[code] = magIndex }
            }
            touched.sort()
            for c in touched {
                body.u32(c)
                body.u32(UInt32(least[Int(c)]) | UInt32(greatest[Int(c)]) << 16)
                seen[Int(c)] = false
                least[Int(c)] = PlaceIndex.noMag
                greatest[Int(c)] = PlaceIndex.noMag
            }
            let count = touched.count
            touched.removeAll(keepingCapacity: true)
            return count
        }
    }

    /// The position of `d` in the ascending `values` (the first not below it).
    private static func index(of d: Double, in values: [Double]) -> Int {
        var lo = 0, hi = values.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if values[mid] < d { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Parses an index region (already checksum-checked) of a partition of `rows` rows.
    package init(_ b: UnsafeRawBufferPointer, rows: Int, blockRows: Int, magValues: Int) throws(QuakeError) {
        // SAFETY: every read of `b` goes through ByteReader, which throws before reading past b.count.
        var reader = ByteReader(b)
        let listed = Int(try reader.u32())
        let units = PlaceIndex.units(rows: rows, blockRows: blockRows)
        guard listed == units.count else { throw .corrupt("place index lists \(listed) units for \(units.count)") }
        let offs = try reader.raw(listed + 1, as: UInt32.self).map { UInt32(littleEndian: $0) }
        guard offs.first == 0, zip(offs, offs.dropFirst()).allSatisfy({ $0 <= $1 }),
              Int(offs[listed]) * 8 == reader.remaining else { throw .corrupt("place index offsets are out of order") }
        var list: [Entry] = []
        list.reserveCapacity(Int(offs[listed]))
        for _ in 0..<Int(offs[listed]) {
            let code = try reader.u32(), magnitudes = try reader.u32()
            let entry = Entry(code: code, least: UInt16(truncatingIfNeeded: magnitudes),
                              greatest: UInt16(truncatingIfNeeded: magnitudes >> 16))
            guard (entry.least == PlaceIndex.noMag) == (entry.greatest == PlaceIndex.noMag),
                  entry.least == PlaceIndex.noMag
                      || (entry.least <= entry.greatest && Int(entry.greatest) < magValues) else {
                throw .corrupt("place index entry holds magnitudes \(entry.least)...\(entry.greatest) of \(magValues)")
            }
            list.append(entry)
        }
        offsets = offs
        entries = list
        unitCount = listed
        self.blockRows = blockRows
        var first: [Int] = []
        for (i, u) in units.enumerated() where first.count == u.block { first.append(i) }
        blockFirstUnit = first
    }

    /// The ordinal of the unit of granule `g` in block `k`; nil when there is none.
    package func unit(block k: Int, granule g: Int) -> Int? {
        guard k >= 0, k < blockFirstUnit.count else { return nil }
        let unit = blockFirstUnit[k] + g - (k * blockRows) / GranuleIndex.granuleRows
        guard unit >= blockFirstUnit[k],
              unit < (k + 1 < blockFirstUnit.count ? blockFirstUnit[k + 1] : unitCount) else {
            return nil
        }
        return unit
    }

    /// The entries of every unit of block `k`, unit by unit.
    package func entries(block k: Int) throws(QuakeError) -> ArraySlice<Entry> {
        guard k >= 0, k < blockFirstUnit.count else { throw .corrupt("place index has no block \(k)") }
        let end = k + 1 < blockFirstUnit.count ? blockFirstUnit[k + 1] : unitCount
        return entries[Int(offsets[blockFirstUnit[k]])..<Int(offsets[end])]
    }

    /// The least and greatest magnitude (indexes; ``noMag`` when none) over the localities of
    /// unit `u` that `matches` (indexed by code) accepts; nil when none of them occurs.
    package func bounds(unit u: Int, matches: [Bool]) -> (least: UInt16, greatest: UInt16)? {
        var any = false
        var lo = PlaceIndex.noMag, hi = PlaceIndex.noMag
        for e in entries[Int(offsets[u])..<Int(offsets[u + 1])] where Int(e.code) < matches.count
            && matches[Int(e.code)] {
            any = true
            if e.least != PlaceIndex.noMag && (lo == PlaceIndex.noMag || e.least < lo) { lo = e.least }
            if e.greatest != PlaceIndex.noMag && (hi == PlaceIndex.noMag || e.greatest > hi) { hi = e.greatest }
        }
        return any ? (lo, hi) : nil
    }
}
