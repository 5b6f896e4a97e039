import QuakeFormat
import QuakeStore
/// One Parquet file of a query's result, fed chunk by chunk (``Store/query(_:columns:chunkRows:begin:chunk:)``),
/// written as row groups of ``Store/parquetRowGroupRows`` and renamed into place by ``finish()``.
package final class ParquetResultFile {
    private let writer: ParquetFileWriter

    package init(path: String, columns: [Column]) throws {
        writer = try ParquetFileWriter(path: path, columns: columns)
    }

    /// Appends the rows of a result chunk.
    package func write(_ r: QueryResult) throws {
        var at = 0
        while at < r.count {
            let end = Swift.min(r.count, at + Store.parquetRowGroupRows)
            try writer.write(r.batch, rows: at..<end)
            at = end
        }
    }

    /// Completes the file; without it, no file appears under `path`.
    package func finish() throws { try writer.finish() }

    /// Drops the unfinished file.
    package func abandon() { writer.abandon() }
}
