import QuakeFormat
import QuakeStore

extension ArrowStreamWriter {
    /// Writes `table` as a whole Arrow IPC stream: the schema (each field nullable, typed as its
    /// values), record batches of at most ``batchRows`` rows and under 2 GiB of text per column
    /// (utf8 offsets are 32-bit), then the end-of-stream marker. The writer's own `columns` play
    /// no part.
    package func write(_ table: AggregateTable) {
        let fields = table.fields.map { field in
            ArrowStreamWriter.field(name: field.name, nullable: true, type: field.values.type)
        }
        message(headerType: 1, header: .table([nil, .tables(fields)]), body: [])
        var start = 0
        while start < table.rowCount {
            let end = ArrowStreamWriter.batchEnd(table, from: start)
            writeBatch(table, rows: start..<end)
            sink.maybeFlush()
            start = end
        }
        end()
    }

    /// Where the batch that starts at `start` ends: after ``batchRows`` rows, the table's last
    /// row, or before the row that would take a text column past 2 GiB (never before `start + 1`).
    static func batchEnd(_ table: AggregateTable, from start: Int) -> Int {
        let limit = Swift.min(table.rowCount, start + batchRows)
        let texts: [[String?]] = table.fields.compactMap { field in
            guard case .utf8(let values) = field.values else { return nil }
            return values
        }
        var textBytes = [Int](repeating: 0, count: texts.count)
        var end = start
        while end < limit {
            for (column, values) in texts.enumerated() {
                textBytes[column] += values[end]?.utf8.count ?? 0
                if textBytes[column] > Int(Int32.max) && end > start { return end }
            }
            end += 1
        }
        return end
    }

    /// One RecordBatch message of `rows` of `table`.
    private func writeBatch(_ table: AggregateTable, rows: Range<Int>) {
        var recordBatch = ArrowRecordBatch()
        for field in table.fields {
            var validity = [UInt8](repeating: 0, count: (rows.count + 7) / 8)
            var nulls = 0
            var values: [UInt8] = []
            var data: [UInt8] = []
            switch field.values {
            case .timestamp(let integers), .int64(let integers):
                values.reserveCapacity(rows.count * 8)
                for (offset, row) in rows.enumerated() {
                    let bits = integers[row].map { UInt64(bitPattern: $0) }
                    ArrowStreamWriter.appendFixed(bits, offset, &values, &validity, &nulls)
                }
            case .float64(let doubles):
                values.reserveCapacity(rows.count * 8)
                for (offset, row) in rows.enumerated() {
                    ArrowStreamWriter.appendFixed(doubles[row]?.bitPattern, offset, &values, &validity, &nulls)
                }
            case .utf8(let texts):
                values.reserveCapacity((rows.count + 1) * 4)
                ParquetChunkEncoder.appendUInt32(0, &values)
                for (offset, row) in rows.enumerated() {
                    if let text = texts[row] {
                        validity[offset >> 3] |= 1 << UInt8(offset & 7)
                        data.append(contentsOf: text.utf8)
                    } else {
                        nulls += 1
                    }
                    ParquetChunkEncoder.appendUInt32(UInt32(truncatingIfNeeded: data.count), &values)
                }
            }
            recordBatch.addNode(length: rows.count, nulls: nulls)
            recordBatch.addBuffer(nulls == 0 ? [] : validity)
            recordBatch.addBuffer(values)
            if case .utf8 = field.values { recordBatch.addBuffer(data) }
        }
        message(headerType: 3, header: recordBatch.header(rows: rows.count), body: recordBatch.body)
    }

    /// Appends an 8-byte value, or a zeroed slot for a null, and marks row `offset` valid or not.
    private static func appendFixed(_ bits: UInt64?, _ offset: Int, _ values: inout [UInt8],
                                    _ validity: inout [UInt8], _ nulls: inout Int) {
        guard let bits else {
            nulls += 1
            ParquetChunkEncoder.appendUInt64(0, &values)
            return
        }
        validity[offset >> 3] |= 1 << UInt8(offset & 7)
        ParquetChunkEncoder.appendUInt64(bits, &values)
    }
}
