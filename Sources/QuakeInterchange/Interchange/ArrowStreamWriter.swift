import QuakeFormat
import QuakeStore
/// Writes query results as an Arrow IPC stream (the streaming format, metadata version V5):
/// one Schema message, a RecordBatch message per chunk of rows, and the end-of-stream marker.
/// `time` and `updated` are `timestamp[ms, tz=UTC]`, numbers `float64`, strings `utf8`; the
/// required fields are not nullable. pyarrow's `ipc.open_stream` and Polars read it as is.
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
            let type: (UInt8, FB)
            switch c.kind {
            case .timestamp: type = (10, .table([.i16(1), .string("UTC")]))  // Timestamp(MILLISECOND, "UTC")
            case .decimal: type = (3, .table([.i16(2)]))  // FloatingPoint(DOUBLE)
            default: type = (5, .table([]))  // Utf8
            }
            return .table([.string(c.name), .bool(!Column.required.contains(c)), .u8(type.0), type.1, nil,
                           .tables([])])
        }
        let schema: FB = .table([nil, .tables(fields)])
        message(headerType: 1, header: schema, body: [])
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

    private func message(headerType: UInt8, header: FB, body: [UInt8]) {
        let meta = FlatBufferWriter.encode(.table([.i16(4), .u8(headerType), header, .i64(Int64(body.count))]))
        ParquetChunkEncoder.appendUInt32(0xFFFF_FFFF, &sink.buffer)
        ParquetChunkEncoder.appendUInt32(UInt32(meta.count), &sink.buffer)
        sink.buffer.append(contentsOf: meta)
        sink.buffer.append(contentsOf: body)
    }

    private func batch(_ b: RowBatch, _ rows: Range<Int>) {
        // utf8 offsets are 32-bit: a batch whose text passes 2 GiB goes out in halves
        if rows.count > 1, columns.contains(where: { c in
            guard c.kind != .timestamp && c.kind != .decimal else { return false }
            let a = b.text[c.rawValue]
            return a.range(rows.upperBound - 1).upperBound - a.range(rows.lowerBound).lowerBound > Int(Int32.max)
        }) {
            let mid = rows.lowerBound + rows.count / 2
            batch(b, rows.lowerBound..<mid)
            batch(b, mid..<rows.upperBound)
            return
        }
        var body: [UInt8] = []
        var nodes: [UInt8] = [], buffers: [UInt8] = []
        var bufferCount = 0
        func buffer(_ bytes: [UInt8]) {
            ParquetChunkEncoder.appendUInt64(UInt64(body.count), &buffers)
            ParquetChunkEncoder.appendUInt64(UInt64(bytes.count), &buffers)
            body.append(contentsOf: bytes)
            while body.count % 8 != 0 { body.append(0) }
            bufferCount += 1
        }
        let n = rows.count
        for c in columns {
            var valid = [UInt8](repeating: 0, count: (n + 7) / 8)
            var nulls = 0
            var values: [UInt8] = []
            var data: [UInt8] = []
            switch c.kind {
            case .timestamp, .decimal:
                values.reserveCapacity(n * 8)
                // SAFETY: callers pass rows inside the batch, so p[i] lies in the column's count values; `p` does not
                // escape the closure.
                b.ints[c.rawValue].withUnsafeBufferPointer { p in
                    for (k, i) in rows.enumerated() {
                        let v = p[i]
                        if v == RowBatch.null { nulls += 1; ParquetChunkEncoder.appendUInt64(0, &values); continue }
                        valid[k >> 3] |= 1 << UInt8(k & 7)
                        let bits = c.kind == .timestamp ? UInt64(bitPattern: v) : ScaledDecimal.double(v).bitPattern
                        ParquetChunkEncoder.appendUInt64(bits, &values)
                    }
                }
            default:
                let a = b.text[c.rawValue]
                values.reserveCapacity((n + 1) * 4)
                ParquetChunkEncoder.appendUInt32(0, &values)
                // SAFETY: rows lie inside the batch, so each range lies in the arena's bytes; the bytes are copied
                // into `data` and `all` does not escape the closure.
                a.bytes.withUnsafeBytes { all in
                    for (k, i) in rows.enumerated() {
                        let r = a.range(i)
                        if r.isEmpty { nulls += 1 } else {
                            valid[k >> 3] |= 1 << UInt8(k & 7)
                            data.append(contentsOf: all[r])
                        }
                        ParquetChunkEncoder.appendUInt32(UInt32(truncatingIfNeeded: data.count), &values)
                    }
                }
            }
            ParquetChunkEncoder.appendUInt64(UInt64(n), &nodes)
            ParquetChunkEncoder.appendUInt64(UInt64(nulls), &nodes)
            buffer(nulls == 0 ? [] : valid)
            buffer(values)
            if c.kind != .timestamp && c.kind != .decimal { buffer(data) }
        }
        let header: FB = .table([.i64(Int64(n)), .structs(nodes, count: columns.count), .structs(buffers, count: bufferCount)])
        message(headerType: 3, header: header, body: body)
    }
}
