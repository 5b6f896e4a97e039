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
        var manifest = Manifest(partitioning: old.partitioning, blockRows: old.blockRows)
        let top = TopRowsCollector(floor: -.infinity, capacity: TopRows.maximumCapacity)
        manifest.generation = old.generation + 1
        manifest.idBuckets = old.idBuckets
        manifest.history = HistoryRetention(startingAt: manifest.generation)   // v1 kept no history
        for entry in old.partitions {
            progress?(entry.key)
            let batch = try old.readPartition(storePath: path, entry)
            let file = "\(entry.key).g\(manifest.generation).\(PartitionFile.fileExtension)"
            manifest.partitions.append(try PartitionWriter.write(batch, key: entry.key, file: file, storePath: path,
                                                                 blockRows: manifest.blockRows))
            top.offer(batch, file: file)
            manifest.rows += batch.count
        }
        guard manifest.rows == old.rows else {
            throw .corrupt(v1Path, "partitions hold \(manifest.rows) rows, manifest says \(old.rows)")
        }
        var none = manifest
        none.partitions = []
        try attachTopRows(&manifest, old: none, collected: top.take(), storePath: path)
        try FileIO.syncFilesystem(path)
        manifest = try commit(manifest, storePath: path)
        collectGarbage(manifest, storePath: path)
        return (manifest.partitions.count, manifest.rows)
    }
}
