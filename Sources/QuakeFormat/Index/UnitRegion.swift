/// A region of per-unit entry lists, as the place index and the unit aggregates lay theirs out:
/// a head, `units × lists + 1` u32 entry offsets (the first 0, counted in entries), then the
/// entries, all of one size, unit by unit and list by list.
///
/// A rewrite of some rows of a partition encodes the entries of the units those rows fall in
/// again and copies the rest (``splice(_:headLength:units:lists:entrySize:replaced:)``): the
/// bytes are those of encoding every unit.
package enum UnitRegion {
    /// One unit's new entries, and each of its lists' entry count.
    package struct Unit {
        package var bytes: [UInt8]
        package var counts: [Int]

        package init(bytes: [UInt8], counts: [Int]) {
            self.bytes = bytes
            self.counts = counts
        }
    }

    /// `old` with the entries of the units in `replaced` swapped for their new ones. Nil when
    /// `old` is not such a region of `units` units, or a replacement does not add up (the caller
    /// then encodes the region whole).
    /// - Complexity: O(units × lists) offsets and a copy of the region's bytes.
    package static func splice(_ old: [UInt8], headLength: Int, units: Int, lists: Int, entrySize: Int,
                               replaced: [Int: Unit]) -> [UInt8]? {
        let offsetCount = units * lists + 1
        guard headLength >= 0, units >= 0, lists > 0, entrySize > 0 else { return nil }
        // SAFETY: every read goes through ByteReader, which fails before reading past the array's bytes.
        let offsets = try? old.withStoreBytes { (raw) throws(QuakeError) -> [Int] in
            var reader = ByteReader(raw, at: headLength)
            var out: [Int] = []
            out.reserveCapacity(offsetCount)
            for _ in 0..<offsetCount { out.append(Int(try reader.u32())) }
            return out
        }
        let bodyStart = headLength + 4 * offsetCount
        guard let offsets, offsets.first == 0, zip(offsets, offsets.dropFirst()).allSatisfy({ $0 <= $1 }),
              let last = offsets.last, bodyStart + last * entrySize == old.count else { return nil }
        var writer = ByteWriter()
        writer.bytes.append(contentsOf: old[0..<headLength])
        var body: [UInt8] = []
        body.reserveCapacity(old.count - bodyStart)
        var offset = 0
        writer.u32(0)
        for unit in 0..<units {
            let first = unit * lists
            if let new = replaced[unit] {
                guard new.counts.count == lists, new.counts.allSatisfy({ $0 >= 0 }),
                      new.counts.reduce(0, +) * entrySize == new.bytes.count else { return nil }
                body.append(contentsOf: new.bytes)
                for count in new.counts {
                    offset += count
                    guard offset <= Int(UInt32.max) else { return nil }
                    writer.u32(UInt32(offset))
                }
            } else {
                body.append(contentsOf: old[(bodyStart + offsets[first] * entrySize)
                                            ..< (bodyStart + offsets[first + lists] * entrySize)])
                for list in 0..<lists {
                    offset += offsets[first + list + 1] - offsets[first + list]
                    guard offset <= Int(UInt32.max) else { return nil }
                    writer.u32(UInt32(offset))
                }
            }
        }
        writer.bytes.append(contentsOf: body)
        return writer.bytes
    }

    /// The units of `units` (in order, as ``PlaceIndex/units(rows:blockRows:)`` gives them) that
    /// hold a row of `rows` (ascending), ascending.
    package static func touched(_ units: [(block: Int, granule: Int, rows: Range<Int>)], rows: [Int]) -> [Int] {
        var out: [Int] = []
        var unit = 0
        for row in rows {
            while unit < units.count && units[unit].rows.upperBound <= row { unit += 1 }
            guard unit < units.count else { break }
            if units[unit].rows.contains(row) && out.last != unit { out.append(unit) }
        }
        return out
    }
}
