import QuakeFormat
import QuakeStore

extension ParquetChunkEncoder {
    /// The chunk of `rows` of a typed table's column (``AggregateTable``): an optional column,
    /// PLAIN values of its non-null rows, one data page, with min, max and null count.
    package static func encode(_ values: AggregateTable.Values, rows: Range<Int>,
                               _ pc: ParquetColumn) throws(QuakeError) -> EncodedChunk {
        var chunk = EncodedChunk()
        chunk.values = rows.count
        var definitions: [UInt32] = []
        definitions.reserveCapacity(rows.count)
        var plainValues: [UInt8] = []
        switch values {
        case .timestamp(let integers), .int64(let integers):
            let present = presentValues(integers, rows, &definitions, &chunk)
            plainValues.reserveCapacity(present.count * 8)
            for integer in present { appendUInt64(UInt64(bitPattern: integer), &plainValues) }
            if let low = present.min(), let high = present.max() {
                chunk.min = littleEndian(UInt64(bitPattern: low))
                chunk.max = littleEndian(UInt64(bitPattern: high))
            }
        case .float64(let doubles):
            let present = presentValues(doubles, rows, &definitions, &chunk)
            plainValues.reserveCapacity(present.count * 8)
            for double in present { appendUInt64(double.bitPattern, &plainValues) }
            // statistics leave NaN out; a zero minimum is -0.0 and a zero maximum +0.0, as the format says
            let ordered = present.filter { !$0.isNaN }
            if var low = ordered.min(), var high = ordered.max() {
                if low == 0 { low = -0.0 }
                if high == 0 { high = 0.0 }
                chunk.min = littleEndian(low.bitPattern)
                chunk.max = littleEndian(high.bitPattern)
            }
        case .utf8(let texts):
            var low: [UInt8]?
            var high: [UInt8]?
            for text in presentValues(texts, rows, &definitions, &chunk) {
                let bytes = Array(text.utf8)
                appendLength(bytes.count, &plainValues)
                plainValues.append(contentsOf: bytes)
                // unsigned byte order, as the format orders a STRING's statistics
                if low.map({ bytes.lexicographicallyPrecedes($0) }) ?? true { low = bytes }
                if high.map({ $0.lexicographicallyPrecedes(bytes) }) ?? true { high = bytes }
            }
            chunk.min = low
            chunk.max = high
        }
        try appendPages(&chunk, pc, rows: rows.count, definitions: definitions, values: plainValues, dictionary: nil)
        return chunk
    }

    /// The non-null values of `rows`, recording each row's definition level (1 for a value, 0
    /// for a null) and the nulls.
    private static func presentValues<Value>(_ values: [Value?], _ rows: Range<Int>, _ definitions: inout [UInt32],
                                             _ chunk: inout EncodedChunk) -> [Value] {
        var present: [Value] = []
        present.reserveCapacity(rows.count)
        for row in rows {
            if let value = values[row] {
                definitions.append(1)
                present.append(value)
            } else {
                definitions.append(0)
                chunk.nulls += 1
            }
        }
        return present
    }

    private static func littleEndian(_ bits: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        appendUInt64(bits, &bytes)
        return bytes
    }
}
