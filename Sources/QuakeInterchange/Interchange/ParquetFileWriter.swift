import QuakeFormat
import QuakeStore
/// Writes one Parquet file, row group by row group, with the footer (parquet.thrift
/// `FileMetaData`) at the end, in one sequential pass, so it can go to a pipe or standard output.
/// The path is opened by ``OutputTarget``: a file is written under a hidden temporary name beside
/// its final one and renamed by ``finish()``, so a killed export leaves no half file under a final
/// name (and readers globbing `*.parquet` never see the temporary one); `-`, a FIFO or a device is
/// written in place.
package final class ParquetFileWriter {
    package let path: String
    /// Where the file is until it is renamed: the final path for a FIFO, device or `-`.
    package var temporary: String { target.temporaryPath ?? target.finalPath }
    /// The path the file is renamed to.
    package var finalPath: String { target.finalPath }
    private let target: OutputTarget
    private let columns: [ParquetColumn]
    /// The stored columns ``write(_:rows:)`` reads, one per column (empty for a typed table's file).
    private let sources: [Column]
    private var offset = 4
    private var groups: [(rows: Int, chunks: [(EncodedChunk, start: Int)])] = []
    package private(set) var rows = 0
    private var open = true

    package static let magic: [UInt8] = Array("PAR1".utf8)

    /// A file of stored columns, written from row batches by ``write(_:rows:)``.
    package convenience init(path: String, columns: [Column]) throws(QuakeError) {
        try self.init(path: path, parquetColumns: columns.map(ParquetColumn.init), sources: columns)
    }

    /// A file of `parquetColumns`, written from encoded chunks by ``write(chunks:rows:)``.
    package convenience init(path: String, parquetColumns: [ParquetColumn]) throws(QuakeError) {
        try self.init(path: path, parquetColumns: parquetColumns, sources: [])
    }

    private init(path: String, parquetColumns: [ParquetColumn], sources: [Column]) throws(QuakeError) {
        self.path = path
        columns = parquetColumns
        self.sources = sources
        target = try OutputTarget(path)
        do { try target.write(ParquetFileWriter.magic) } catch {
            abandon()
            throw error
        }
    }

    deinit { if open { abandon() } }

    /// Writes `rows` of `b` as one row group, its columns encoded on all cores.
    package func write(_ b: RowBatch, rows range: Range<Int>) throws {
        guard !range.isEmpty else { return }
        let chunks = try parallelMap(sources) { column in try ParquetChunkEncoder.encode(b, rows: range, column) }
        try write(chunks: chunks, rows: range.count)
    }

    /// Writes one row group of `rows` rows from its encoded chunks, one per column in order.
    package func write(chunks: [EncodedChunk], rows rowCount: Int) throws {
        guard chunks.count == columns.count else {
            throw QuakeError.io(path, "a row group of \(chunks.count) column chunks for \(columns.count) columns")
        }
        var placed: [(EncodedChunk, start: Int)] = []
        for var chunk in chunks {
            try target.write(chunk.bytes)
            chunk.compressedSize = chunk.bytes.count
            chunk.bytes = []  // keep the metadata only: memory stays one row group
            placed.append((chunk, offset))
            offset += chunk.compressedSize
        }
        groups.append((rowCount, placed))
        rows += rowCount
    }

    /// Writes the footer, flushes, and renames the file into place.
    package func finish() throws {
        try complete(sync: true, rename: true)
    }

    /// Writes the footer and closes the temporary file (flushed to the device with `sync`);
    /// the caller renames it. An export syncs the file system once for all its files instead.
    package func complete(sync: Bool, rename: Bool = false) throws {
        let footer = footerBytes()
        var tail = footer
        ParquetChunkEncoder.appendUInt32(UInt32(truncatingIfNeeded: footer.count), &tail)
        tail.append(contentsOf: ParquetFileWriter.magic)
        try target.write(tail)
        open = false
        try target.commit(sync: sync, rename: rename)
    }

    /// Drops the temporary file.
    package func abandon() {
        guard open else { return }
        open = false
        target.abandon()
    }

    private func footerBytes() -> [UInt8] {
        var footer = ThriftCompactWriter()
        footer.beginStruct()
        footer.i32(1, 1)
        footer.list(2, structs: columns.count + 1) { element, k in
            if k == 0 {
                element.string(4, "schema")
                element.i32(5, Int32(columns.count))
            } else {
                columns[k - 1].schemaElement(&element)
            }
        }
        footer.i64(3, Int64(rows))
        footer.list(4, structs: groups.count) { rowGroup, k in
            let group = groups[k]
            rowGroup.list(1, structs: group.chunks.count) { columnChunk, j in
                let (chunk, start) = group.chunks[j]
                let pc = columns[j]
                columnChunk.i64(2, Int64(start))
                columnChunk.structure(3) { metadata in
                    metadata.i32(1, pc.physical.rawValue)
                    metadata.list(2, i32: chunk.encodings)
                    metadata.list(3, strings: [pc.name])
                    metadata.i32(4, 6)  // ZSTD
                    metadata.i64(5, Int64(chunk.values))
                    metadata.i64(6, Int64(chunk.uncompressedSize))
                    metadata.i64(7, Int64(chunk.compressedSize))
                    metadata.i64(9, Int64(start + chunk.dataPage))
                    if let dictionaryPage = chunk.dictionaryPage { metadata.i64(11, Int64(start + dictionaryPage)) }
                    metadata.structure(12) { statistics in
                        statistics.i64(3, Int64(chunk.nulls))
                        if let max = chunk.max { statistics.binary(5, max) }
                        if let min = chunk.min { statistics.binary(6, min) }
                    }
                }
            }
            rowGroup.i64(2, Int64(group.chunks.reduce(0) { $0 + $1.0.uncompressedSize }))
            rowGroup.i64(3, Int64(group.rows))
        }
        footer.string(6, "quakes 0.3.0")
        footer.list(7, structs: columns.count) { o, _ in o.structure(1) { _ in } }  // TYPE_ORDER
        footer.endStruct()
        return footer.bytes
    }
}
