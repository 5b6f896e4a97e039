/// Writes a partition's rows (already sorted by time, id) as one column file per column in a
/// new folder. The commit makes them durable with one filesystem sync before the manifest
/// is replaced.
enum PartitionWriter {
    static func write(_ batch: RowBatch, key: String, dir: String, storePath: String, blockRows: Int) throws(StoreError) -> PartitionEntry {
        let path = storePath + "/partitions/" + dir
        try FileIO.makeDirectory(path)
        var disk = [Int](repeating: 0, count: Column.count)
        var raw = [Int](repeating: 0, count: Column.count)
        for c in Column.allCases {
            let (bytes, info) = ColumnFile.encode(c, of: batch, blockRows: blockRows)
            try FileIO.writeFile("\(path)/\(c.name).col", bytes)
            disk[c.rawValue] = info.bytesOnDisk
            raw[c.rawValue] = info.rawBytes
        }
        let t = batch.ints[Column.time.rawValue]
        return PartitionEntry(key: key, dir: dir, rows: batch.count, minTime: t.first ?? 0, maxTime: t.last ?? 0,
                              diskBytes: disk, rawBytes: raw)
    }
}
