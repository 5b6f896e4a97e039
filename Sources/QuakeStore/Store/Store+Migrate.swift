import QuakeFormat
extension Store {
    /// Converts a format v1 store (JSON manifest, one file per column) to format v2 in place.
    ///
    /// Crash-safe like a load: v2 partition files are written under new names, made durable,
    /// and the v2 manifest is committed with one atomic rename. Until then the v1 store is
    /// untouched; afterwards the v1 files are removed. The id index is reused as it is. Runs under
    /// the writer lock, waiting for it as `lockWait` allows (asking `cancelled` meanwhile).
    /// - Returns: the partitions and rows converted.
    /// - Complexity: reads and rewrites every row once; memory holds one partition at a time.
    @discardableResult
    package static func migrate(path: String, lockWait: LockWait = .never, cancelled: (@Sendable () -> Bool)? = nil,
                                progress: ((String) -> Void)? = nil) throws(QuakeError)
        -> (partitions: Int, rows: Int) {
        guard FileIO.isDirectory(path) else { throw .io("no store at \(path)") }
        let lock = try writerLock(path: path, wait: lockWait, cancelled: cancelled)
        defer { withExtendedLifetime(lock) {} }
        if FileIO.exists(manifestPath(path)) {
            throw .unsupported("\(path) is already a format v2 store; nothing to migrate")
        }
        let v1Path = path + "/" + ManifestV1.fileName
        guard FileIO.exists(v1Path) else { throw .io("no store at \(path) (no \(ManifestV1.fileName) to migrate)") }
        let old = try ManifestV1.read(path: v1Path)
        var m = Manifest(partitioning: old.partitioning, blockRows: old.blockRows)
        let top = TopRowsCollector(floor: -.infinity, capacity: TopRows.maximumCapacity)
        m.generation = old.generation + 1
        m.idBuckets = old.idBuckets
        m.history = HistoryRetention(startingAt: m.generation)   // v1 kept no history
        for e in old.partitions {
            progress?(e.key)
            let batch = try old.readPartition(storePath: path, e)
            let file = "\(e.key).g\(m.generation).\(PartitionFile.fileExtension)"
            m.partitions.append(try PartitionWriter.write(batch, key: e.key, file: file, storePath: path, blockRows: m.blockRows))
            top.offer(batch, file: file)
            m.rows += batch.count
        }
        guard m.rows == old.rows else { throw .corrupt(v1Path, "partitions hold \(m.rows) rows, manifest says \(old.rows)") }
        var none = m
        none.partitions = []
        try attachTopRows(&m, old: none, collected: top.take(), storePath: path)
        try FileIO.syncFilesystem(path)
        m = try commit(m, storePath: path)
        collectGarbage(m, storePath: path)
        return (m.partitions.count, m.rows)
    }
}
