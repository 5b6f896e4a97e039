/// Writes a partition's rows (already sorted by time, id) as one v2 partition file. The commit
/// makes it durable with one filesystem sync before the manifest is replaced.
package enum PartitionWriter {
    package static func write(_ batch: RowBatch, key: String, file: String, storePath: String, blockRows: Int) throws(QuakeError) -> PartitionEntry {
        let w = PartitionFile.encode(batch, blockRows: blockRows)
        try FileIO.writeFile(storePath + "/partitions/" + file, w.bytes)
        let t = batch.ints[Column.time.rawValue]
        return PartitionEntry(key: key, file: file, rows: batch.count, minTime: t.first ?? 0, maxTime: t.last ?? 0,
                              bytes: w.bytes.count,
                              deleted: batch.text[Column.status.rawValue].count(of: ByteArena.deletedStatus))
    }
}
