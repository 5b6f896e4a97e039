import QuakeFormat
import QuakeStore
/// Writes query results as an Arrow IPC stream (the streaming format, metadata version V5):
/// one Schema message, a RecordBatch message per chunk of rows, and the end-of-stream marker.
/// `time` and `updated` are `timestamp[ms, tz=UTC]`, `nst` and `magNst` `int64`, other numbers
/// `float64`, strings `utf8` (``InterchangeType``); the required fields are not nullable.
/// pyarrow's `ipc.open_stream` and Polars read it as is.
package final class ArrowStreamWriter {
    package let sink: OutputSink
    package let columns: [Column]
    /// Rows per record batch.
    package static let batchRows = 64 * 1024

    package init(sink: OutputSink, columns: [Column]) {
        self.sink = sink
        self.columns = columns
    }

    package typealias FB = FlatBufferWriter.Value

    /// The Schema message.
    package func begin() {
        let fields: [FB] = columns.map { c in
            ArrowStreamWriter.field(name: c.name, nullable: !Column.required.contains(c), type: InterchangeType(c))
        }
        let schema: FB = .table([nil, .tables(fields)])
        message(headerType: 1, header: schema, body: [])
    }

    /// A schema's Field table: name, nullability and type, with no dictionary or children.
    package static func field(name: String, nullable: Bool, type: InterchangeType) -> FB {
        let arrowType = type.arrowType
        return .table([.string(name), .bool(nullable), .u8(arrowType.tag), arrowType.table, nil, .tables([])])
    }

    /// Record batches for the rows of a result chunk.
    package func write(_ r: QueryResult) { write(r.batch, rows: 0..<r.count) }

    /// Record batches for `rows` of `b`, at most ``batchRows`` rows each.
    package func write(_ b: RowBatch, rows: Range<Int>) {
        var at = rows.lowerBound
        while at < rows.upperBound {
            let end = Swift.min(rows.upperBound, at + ArrowStreamWriter.batchRows)
            batch(b, at..<end)
            at = end
        }
        sink.maybeFlush()
    }

    /// The end-of-stream marker.
    package func end() {
        ParquetChunkEncoder.appendUInt32(0xFFFF_FFFF, &sink.buffer)
        ParquetChunkEncoder.appendUInt32(0, &sink.buffer)
        sink.flush()
    }

    /// One encapsulated message: the continuation marker, the metadata's length, the metadata
    /// (headerType 1 is a Schema, 3 a RecordBatch), then the body.
    func message(headerType: UInt8, header: FB, body: [UInt8]) {
        let meta = FlatBufferWriter.encode(.table([.i16(4), .u8(headerType), header, .i64(Int64(body.count))]))
        ParquetChunkEncoder.appendUInt32(0xFFFF_FFFF, &sink.buffer)
        ParquetChunkEncoder.appendUInt32(UInt32(meta.count), &sink.buffer)
        sink.buffer.append(contentsOf: meta)
        sink.buffer.append(contentsOf: body)
    }

    /// Whether the text of some column in `rows` passes what 32-bit utf8 offsets can address.
    private func textOverflowsOffsets(_ b: RowBatch, _ rows: Range<Int>) -> Bool {
        columns.contains { c in
            guard !InterchangeType(c).isFixedWidth else { return false }
            let texts = b.text[c.rawValue]
            let span = texts.range(rows.upperBound - 1).upperBound - texts.range(rows.lowerBound).lowerBound
            return span > Int(Int32.max)
        }
    }

    private func batch(_ b: RowBatch, _ rows: Range<Int>) {
        // utf8 offsets are 32-bit: a batch whose text passes 2 GiB goes out in halves
        if rows.count > 1, textOverflowsOffsets(b, rows) {
            let mid = rows.lowerBound + rows.count / 2
            batch(b, rows.lowerBound..<mid)
            batch(b, mid..<rows.upperBound)
            return
        }
        var recordBatch = ArrowRecordBatch()
        let count = rows.count
        for c in columns {
            let type = InterchangeType(c)
            var valid = [UInt8](repeating: 0, count: (count + 7) / 8)
            var nulls = 0
            var values: [UInt8] = []
            var data: [UInt8] = []
            if type.isFixedWidth {
                values.reserveCapacity(count * 8)
                // SAFETY: callers pass rows inside the batch, so p[i] lies in the column's count values; `p` does not
                // escape the closure.
                b.ints[c.rawValue].withUnsafeBufferPointer { p in
                    for (k, i) in rows.enumerated() {
                        let value = p[i]
                        if value == RowBatch.null {
                            nulls += 1
                            ParquetChunkEncoder.appendUInt64(0, &values)
                            continue
                        }
                        valid[k >> 3] |= 1 << UInt8(k & 7)
                        ParquetChunkEncoder.appendUInt64(type.bits(stored: value), &values)
                    }
                }
            } else {
                let texts = b.text[c.rawValue]
                values.reserveCapacity((count + 1) * 4)
                ParquetChunkEncoder.appendUInt32(0, &values)
                // SAFETY: rows lie inside the batch, so each range lies in the arena's bytes; the bytes are copied
                // into `data` and `all` does not escape the closure.
                texts.bytes.withUnsafeBytes { all in
                    for (k, i) in rows.enumerated() {
                        let range = texts.range(i)
                        if range.isEmpty {
                            nulls += 1
                        } else {
                            valid[k >> 3] |= 1 << UInt8(k & 7)
                            data.append(contentsOf: all[range])
                        }
                        ParquetChunkEncoder.appendUInt32(UInt32(truncatingIfNeeded: data.count), &values)
                    }
                }
            }
            recordBatch.addNode(length: count, nulls: nulls)
            recordBatch.addBuffer(nulls == 0 ? [] : valid)
            recordBatch.addBuffer(values)
            if !type.isFixedWidth { recordBatch.addBuffer(data) }
        }
        message(headerType: 3, header: recordBatch.header(rows: count), body: recordBatch.body)
    }
}
