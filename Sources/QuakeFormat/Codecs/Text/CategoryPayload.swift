/// Encodes a block of low-cardinality strings as a block dictionary plus codes of 1, 2 or 4
/// bytes. Code 0 is null; entry k of the dictionary has code k + 1.
package enum CategoryPayload {
    package static func encode(_ a: ByteArena, rows: Range<Int>) -> [UInt8] {
        var dict = SliceInterner()
        var codes = [UInt32](repeating: 0, count: rows.count)
        // SAFETY: each row's range lies in the arena's bytes, so b[r] stays in `b`; intern copies the bytes and
        // no pointer outlives the closure.
        a.bytes.withUnsafeBytes { b in
            for (k, i) in rows.enumerated() {
                let range = a.range(i)
                if range.isEmpty { continue }
                codes[k] = UInt32(dict.intern(UnsafeRawBufferPointer(rebasing: b[range])) + 1)
            }
        }
        var writer = ByteWriter()
        writeDictionary(dict.values, into: &writer)
        writeCodes(codes, maxCode: dict.count, into: &writer)
        return writer.bytes
    }

    package static func writeDictionary(_ d: ByteArena, into w: inout ByteWriter) {
        w.u32(UInt32(d.count))
        for i in 0..<d.count { w.u32(UInt32(d.range(i).count)) }
        w.bytes.append(contentsOf: d.bytes)
    }

    package static func readDictionary(_ r: inout ByteReader) throws(QuakeError) -> ByteArena {
        let count = Int(try r.u32())
        guard count <= r.remaining / 4 else { throw .corrupt("dictionary size \(count)") }
        var dictionary = ByteArena()
        var total = 0
        dictionary.ends.reserveCapacity(count)
        for _ in 0..<count {
            total += Int(try r.u32())
            dictionary.ends.append(total)
        }
        dictionary.bytes = try r.raw(total, as: UInt8.self)
        return dictionary
    }

    package static func writeCodes(_ codes: [UInt32], maxCode: Int, into w: inout ByteWriter) {
        let width = maxCode < 256 ? 1 : maxCode < 65536 ? 2 : 4
        w.u8(UInt8(width))
        switch width {
        case 1: w.raw(codes.map { UInt8($0) })
        case 2: w.raw(codes.map { UInt16($0).littleEndian })
        default: w.raw(codes.map { $0.littleEndian })
        }
    }

    package static func readCodes(_ r: inout ByteReader, rows: Int,
                                  dictionarySize: Int) throws(QuakeError) -> [UInt32] {
        let width = Int(try r.u8())
        let codes: [UInt32]
        switch width {
        case 1: codes = try r.raw(rows, as: UInt8.self).map { UInt32($0) }
        case 2: codes = try r.raw(rows, as: UInt16.self).map { UInt32(UInt16(littleEndian: $0)) }
        case 4: codes = try r.raw(rows, as: UInt32.self).map { UInt32(littleEndian: $0) }
        default: throw .corrupt("code width \(width)")
        }
        for c in codes where Int(c) > dictionarySize { throw .corrupt("dictionary code \(c) out of range") }
        return codes
    }

    /// Decodes to the dictionary and per-row codes (0 = null).
    package static func decode(_ raw: UnsafeRawBufferPointer, rows: Int) throws(QuakeError) -> CategoryBlock {
        // SAFETY: every read of `raw` goes through ByteReader, which throws before reading past raw.count.
        var reader = ByteReader(raw)
        let dict = try readDictionary(&reader)
        let codes = try readCodes(&reader, rows: rows, dictionarySize: dict.count)
        return CategoryBlock(dictionary: dict, codes: codes)
    }
}

/// A decoded category block: distinct values and one code per row (0 = null, k = entry k - 1).
package struct CategoryBlock: Sendable {
    package var dictionary: ByteArena
    package var codes: [UInt32]

    /// Every row's value.
    package func arena() -> ByteArena { arena(of: codes.indices) }

    /// The values of `rows`, in their order.
    package func arena(of rows: some Sequence<Int>) -> ByteArena {
        var out = ByteArena()
        out.ends.reserveCapacity(rows.underestimatedCount)
        for row in rows {
            let code = codes[row]
            if code == 0 { out.appendNull() } else { out.append(from: dictionary, row: Int(code) - 1) }
        }
        return out
    }
}
