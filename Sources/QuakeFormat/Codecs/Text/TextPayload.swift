/// Encodes a block of free strings (ids, urls, titles) as a length array plus the bytes end to
/// end; zstd removes the repetition (urls share long prefixes).
package enum TextPayload {
    package static func encode(_ a: ByteArena, rows: Range<Int>) -> [UInt8] {
        var writer = ByteWriter()
        var lengths = [UInt32]()
        lengths.reserveCapacity(rows.count)
        for i in rows { lengths.append(UInt32(a.range(i).count)) }
        writer.raw(lengths)
        if !rows.isEmpty {
            let lo = a.range(rows.lowerBound).lowerBound, hi = a.range(rows.upperBound - 1).upperBound
            writer.bytes.append(contentsOf: a.bytes[lo..<hi])
        }
        return writer.bytes
    }

    package static func decode(_ raw: UnsafeRawBufferPointer, rows: Int) throws(QuakeError) -> ByteArena {
        // SAFETY: every read of `raw` goes through ByteReader, which throws before reading past raw.count.
        var reader = ByteReader(raw)
        let lengths = try reader.raw(rows, as: UInt32.self)
        var out = ByteArena()
        out.ends.reserveCapacity(rows)
        var total = 0
        for l in lengths {
            total += Int(l)
            out.ends.append(total)
        }
        guard total == reader.remaining else { throw .corrupt("text block lengths do not add up") }
        out.bytes = try reader.raw(total, as: UInt8.self)
        return out
    }
}
