import QuakeFormat
import QuakeStore

extension ParquetFileWriter {
    /// Writes `table` as one Parquet file at `path`, opened by ``OutputTarget`` (`-` is standard
    /// output; a file appears under its name only when complete): row groups of
    /// ``Store/parquetRowGroupRows``, each column OPTIONAL and typed as its values
    /// (``ParquetColumn/init(name:type:)``), zstd pages with min, max and null counts.
    /// - Throws: a ``QuakeError`` naming `path` when the file cannot be written; nothing is then
    ///   left under `path`.
    package static func write(_ table: AggregateTable, to path: String) throws(QuakeError) {
        let columns = table.fields.map { field in ParquetColumn(name: field.name, type: field.values.type) }
        let writer = try ParquetFileWriter(path: path, parquetColumns: columns)
        do {
            var start = 0
            while start < table.rowCount {
                let end = Swift.min(table.rowCount, start + Store.parquetRowGroupRows)
                var chunks: [EncodedChunk] = []
                for (field, column) in zip(table.fields, columns) {
                    chunks.append(try ParquetChunkEncoder.encode(field.values, rows: start..<end, column))
                }
                try writer.write(chunks: chunks, rows: end - start)
                start = end
            }
            try writer.finish()
        } catch {
            writer.abandon()
            throw (error as? QuakeError)?.at(path) ?? QuakeError.io(path, "\(error)")
        }
    }
}
