/// Low-cardinality strings (`net`, `magType`, `type`, `status`, ...): the chunk's dictionary,
/// then one bit-packed code per row (0 for null, k for entry k - 1). No general-purpose
/// decompressor; any row range decodes by unpacking just its codes.
package enum DictionaryCodec: ColumnCodec {
    package static let id = CodecID.dictionary

    private static func codes(_ a: ByteArena, rows: Range<Int>) -> (SliceInterner, [UInt64], Int) {
        var dict = SliceInterner()
        var codes = [UInt64](repeating: 0, count: rows.count)
        var nulls = 0
        // SAFETY: every row range of `a` lies in its bytes, so b[range] stays in `b`; `b` is not kept past the closure.
        a.bytes.withUnsafeBytes { b in
            // runs of one value are common (status, type, sources): compare with the row before
            // and hash only when the value changes
            var last = 0
            var lastCode: UInt64 = 0
            for (k, i) in rows.enumerated() {
                let range = a.range(i)
                if range.isEmpty {
                    nulls += 1
                    continue
                }
                if lastCode != 0 && a.equal(i, a, last) {
                    codes[k] = lastCode
                    continue
                }
                lastCode = UInt64(dict.intern(UnsafeRawBufferPointer(rebasing: b[range])) + 1)
                last = i
                codes[k] = lastCode
            }
        }
        return (dict, codes, nulls)
    }

    package static func analyze(_ values: ByteArena, rows: Range<Int>) -> Int {
        let (dict, _, _) = codes(values, rows: rows)
        return 5 + 4 * dict.count + dict.values.bytes.count
            + BitPacking.bytes(rows.count, width: BitPacking.width(UInt64(dict.count)))
    }

    package static func encode(_ values: ByteArena, rows: Range<Int>, into out: inout [UInt8]) -> ChunkStats {
        let (dict, codes, nulls) = codes(values, rows: rows)
        var writer = ByteWriter()
        CategoryPayload.writeDictionary(dict.values, into: &writer)
        let width = BitPacking.width(UInt64(dict.count))
        writer.u8(UInt8(width))
        // SAFETY: `$0` spans the codes array's count values and does not escape the closure.
        codes.withUnsafeBufferPointer { BitPacking.pack($0, width: width, into: &writer.bytes) }
        out.append(contentsOf: writer.bytes)
        return ChunkStats(nulls: nulls, min: 0, max: 0)
    }

    package static func decode(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>,
                       as form: VectorForm) throws(QuakeError) -> ColumnVector {
        guard rows.lowerBound >= 0, rows.upperBound <= count else { throw .corrupt("row range \(rows) outside chunk") }
        var reader = ByteReader(chunk)
        let dict = try CategoryPayload.readDictionary(&reader)
        let width = Int(try reader.u8())
        guard width <= 32 else { throw .corrupt("dictionary code width \(width)") }
        // a view of `chunk`, which outlives it; take checks the run lies in the chunk
        let packed = PackedRun(try reader.take(BitPacking.bytes(count, width: width)), width: width)
        var wide = [UInt64](repeating: 0, count: rows.count)
        // SAFETY: `w` is used only inside the closure; see the line below for the unpack bounds.
        wide.withUnsafeMutableBufferPointer { w in
            // SAFETY: w has rows.count slots, and rows lie inside the chunk's count packed values.
            if let base = w.baseAddress { packed.unpack(rows, reference: 0, into: base) }
        }
        var codes = [UInt32](repeating: 0, count: rows.count)
        for i in 0..<wide.count {
            guard wide[i] <= UInt64(dict.count) else { throw .corrupt("dictionary code \(wide[i]) out of range") }
            codes[i] = UInt32(truncatingIfNeeded: wide[i])
        }
        return .category(CategoryBlock(dictionary: dict, codes: codes))
    }
}
