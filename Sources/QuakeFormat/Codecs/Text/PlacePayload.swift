/// Pattern-encodes place names. Most USGS places read `<N> km <DIR> of <locality>` (older feeds
/// `<N>km ...`): those become a distance, a direction byte and a code into a small locality
/// dictionary. Any other place is a dictionary entry whole. The text comes back byte for byte.
package enum PlacePayload {
    package static let directions: [String] = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW",
                                               "WSW", "W", "WNW", "NW", "NNW"]
    package static let directionBytes: [[UInt8]] = directions.map { Array($0.utf8) }
    /// Direction byte of a place that does not follow the pattern.
    package static let noPattern: UInt8 = 0xFF
    package static let spaceFlag: UInt8 = 0x10

    /// Splits `<N>[ ]km <DIR> of <rest>`; nil when `p` does not follow the pattern exactly.
    @inline(__always)
    package static func split(_ p: UnsafeRawBufferPointer) -> (dist: Int32, dir: UInt8, rest: Range<Int>)? {
        let count = p.count
        var position = 0
        var dist: Int32 = 0
        // SAFETY: every p[k] follows a bound check: position < count in the loops, position + 3 <= count and position +
        // 4 < count in the guards,
        // and ds + j < ds + dlen = position <= count; `rest` ends at count = p.count.
        while position < count, position < 7, p[position] >= 48, p[position] <= 57 {
            dist = dist * 10 + Int32(p[position] - 48)
            position += 1
        }
        guard position > 0, position < 7, !(position > 1 && p[0] == 48) else { return nil }
        var dir: UInt8 = 0
        if position < count && p[position] == 0x20 {
            dir = spaceFlag
            position += 1
        }
        guard position + 3 <= count, p[position] == UInt8(ascii: "k"), p[position + 1] == UInt8(ascii: "m"),
              p[position + 2] == 0x20 else {
            return nil
        }
        position += 3
        let ds = position
        while position < count, position - ds < 4,
              p[position] == 78 || p[position] == 83 || p[position] == 69 || p[position] == 87 {
            position += 1
        }
        let dlen = position - ds
        guard dlen >= 1, dlen <= 3 else { return nil }
        var code = -1
        for (k, d) in directionBytes.enumerated() where d.count == dlen {
            var same = true
            for j in 0..<dlen where d[j] != p[ds + j] {
                same = false
                break
            }
            if same {
                code = k
                break
            }
        }
        guard code >= 0, position + 4 < count, p[position] == 0x20, p[position + 1] == UInt8(ascii: "o"),
              p[position + 2] == UInt8(ascii: "f"), p[position + 3] == 0x20 else {
            return nil
        }
        return (dist, dir | UInt8(code), (position + 4)..<count)
    }

    package static func encode(_ a: ByteArena, rows: Range<Int>) -> [UInt8] {
        var dict = SliceInterner()
        var dist = [Int32](repeating: 0, count: rows.count)
        var dirs = [UInt8](repeating: noPattern, count: rows.count)
        var loc = [UInt32](repeating: 0, count: rows.count)
        // SAFETY: each row's range lies in the arena's bytes and parts.rest lies in `place` (split's result), so
        // every slice stays in `b`; no pointer outlives the closure (intern copies the bytes).
        a.bytes.withUnsafeBytes { b in
            for (k, i) in rows.enumerated() {
                let range = a.range(i)
                if range.isEmpty { continue }
                let place = UnsafeRawBufferPointer(rebasing: b[range])
                if let parts = split(place) {
                    dist[k] = parts.dist
                    dirs[k] = parts.dir
                    loc[k] = UInt32(dict.intern(UnsafeRawBufferPointer(rebasing: place[parts.rest])) + 1)
                } else {
                    loc[k] = UInt32(dict.intern(place) + 1)
                }
            }
        }
        var writer = ByteWriter()
        CategoryPayload.writeDictionary(dict.values, into: &writer)
        CategoryPayload.writeCodes(loc, maxCode: dict.count, into: &writer)
        writer.raw(dirs)
        writer.raw(dist.map { $0.littleEndian })
        return writer.bytes
    }

    /// A direction byte is ``noPattern`` or a direction index (0 to 15) with at most the space flag.
    package static func checkDirections(_ dirs: [UInt8]) throws(QuakeError) {
        for d in dirs where d != noPattern && d & ~(spaceFlag | 0x0F) != 0 {
            throw .corrupt("place direction byte \(d)")
        }
    }

    package static func decode(_ raw: UnsafeRawBufferPointer, rows: Int) throws(QuakeError) -> PlaceBlock {
        // SAFETY: every read of `raw` goes through ByteReader, which throws before reading past raw.count.
        var reader = ByteReader(raw)
        let dict = try CategoryPayload.readDictionary(&reader)
        let loc = try CategoryPayload.readCodes(&reader, rows: rows, dictionarySize: dict.count)
        let dirs = try reader.raw(rows, as: UInt8.self)
        let dist = try reader.raw(rows, as: Int32.self).map { Int32(littleEndian: $0) }
        try checkDirections(dirs)
        return PlaceBlock(localities: dict, locality: loc, direction: dirs, distance: dist)
    }
}

/// A decoded place block: a locality dictionary and, per row, its code, direction and distance.
package struct PlaceBlock: Sendable {
    /// Distinct localities (or whole places that do not follow the pattern).
    package var localities: ByteArena
    /// Per row: 0 for null, k for `localities` entry k - 1.
    package var locality: [UInt32]
    /// Per row: direction index | space flag, or ``PlacePayload/noPattern``.
    package var direction: [UInt8]
    package var distance: [Int32]

    /// Appends the full place text of `row` to `out`.
    package func write(_ row: Int, into out: inout [UInt8]) {
        let code = locality[row]
        if code == 0 { return }
        let dir = direction[row]
        if dir != PlacePayload.noPattern {
            prefix(row, into: &out)
        }
        out.append(contentsOf: localities.bytes[localities.range(Int(code) - 1)])
    }

    /// Each direction's letters, the first in the low byte, and their count in the top byte:
    /// a literal, so read without a lazy-global check.
    private static let packedDirections: [UInt32] = [
        0x0100_004E, 0x0345_4E4E, 0x0200_454E, 0x0345_4E45, 0x0100_0045, 0x0345_5345, 0x0200_4553, 0x0345_5353,
        0x0100_0053, 0x0357_5353, 0x0200_5753, 0x0357_5357, 0x0100_0057, 0x0357_4E57, 0x0200_574E, 0x0357_4E4E
    ]

    /// Appends `<N>[ ]km <DIR> of ` for a patterned row, built in a buffer on the stack and
    /// appended once.
    @inline(__always)
    package func prefix(_ row: Int, into out: inout [UInt8]) {
        let dir = direction[row]
        var remaining = distance[row].magnitude
        var digits = 1
        var rest = remaining / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        let letters = PlaceBlock.packedDirections[Int(dir & 0x0F)]
        var buffer: (UInt64, UInt64, UInt64) = (0, 0, 0)
        // SAFETY: `b` spans the 24 bytes of the local `buffer` and does not escape the closure.
        withUnsafeMutableBytes(of: &buffer) { b in
            // SAFETY: at most 10 digits (a UInt32), a space, "km ", 3 letters and " of ": 21 of 24 bytes.
            var length = digits
            repeat {
                length -= 1
                b[length] = UInt8(truncatingIfNeeded: 48 + remaining % 10)
                remaining /= 10
            } while length > 0
            length = digits
            if dir & PlacePayload.spaceFlag != 0 {
                b[length] = 0x20
                length += 1
            }
            b[length] = UInt8(ascii: "k")
            b[length + 1] = UInt8(ascii: "m")
            b[length + 2] = 0x20
            length += 3
            for j in 0..<Int(letters >> 24) { b[length + j] = UInt8(truncatingIfNeeded: letters >> UInt32(8 * j)) }
            length += Int(letters >> 24)
            b[length] = 0x20
            b[length + 1] = UInt8(ascii: "o")
            b[length + 2] = UInt8(ascii: "f")
            b[length + 3] = 0x20
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[0..<(length + 4)]))
        }
    }

    /// Every row's place text.
    package func arena() -> ByteArena { arena(of: locality.indices) }

    /// The place texts of `rows`, in their order.
    package func arena(of rows: some Sequence<Int>) -> ByteArena {
        var out = ByteArena()
        out.ends.reserveCapacity(rows.underestimatedCount)
        for row in rows {
            write(row, into: &out.bytes)
            out.ends.append(out.bytes.count)
        }
        return out
    }
}
