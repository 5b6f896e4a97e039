/// Writes a partition's rows (already sorted by time, id) as one v2 partition file. The commit
/// makes it durable with one filesystem sync before the manifest is replaced.
/// Columns in `reused` are copied as the old file stored them (``PartitionFile/ColumnImage``);
/// the entry's `deleted` then counts only the status rows `batch` holds.
package enum PartitionWriter {
    package static func write(_ batch: RowBatch, key: String, file: String, storePath: String, blockRows: Int,
                              reused: [Int: PartitionFile.ColumnImage] = [:]) throws(QuakeError) -> PartitionEntry {
        let encoded = PartitionFile.encode(batch, blockRows: blockRows, reused: reused)
        try FileIO.writeFile(storePath + "/partitions/" + file, encoded.bytes)
        let times = batch.ints[Column.time.rawValue]
        return PartitionEntry(key: key, file: file, rows: batch.count, minTime: times.first ?? 0,
                              maxTime: times.last ?? 0, bytes: encoded.bytes.count,
                              deleted: batch.text[Column.status.rawValue].count(of: ByteArena.deletedStatus))
    }
}
