import QuakeFormat
extension Store {
    /// Loads feed files (CSV or GeoJSON; plain, gzip or zstd; directories walked; `-` is stdin)
    /// as an upsert keyed by event id, and commits the result as one new snapshot.
    ///
    /// Takes the writer lock for the duration. On any thrown error nothing is committed and
    /// the previous snapshot stays as it was.
    @discardableResult
    /// The feed files `load` would read for `paths`: files as given, directories walked
    /// (names containing `.csv`, `.geojson` or `.json`), `-` for stdin. Throws when there are none.
    package static func feedFiles(_ paths: [String]) throws(IngestError) -> [String] { try InputFiles.expand(paths) }

    public func load(_ paths: [String], options: LoadOptions = LoadOptions()) throws -> LoadSummary {
        let lock = try StoreLock(storePath: path)
        defer { withExtendedLifetime(lock) {} }
        try refresh()
        let before = manifest
        Store.collectGarbage(before, storePath: path)
        do {
            let loader = Loader(storePath: path, manifest: before, options: options)
            var (summary, next) = try loader.run(paths)
            if var next, next.partitions != before.partitions || next.idBuckets != before.idBuckets {
                options.onPhase?("committing")
                options.onProgress?(LoadProgress(phase: .commit, done: 0, total: nil, bytesRead: summary.bytesRead,
                                                 rows: summary.rowsRead, elapsedSeconds: summary.elapsedSeconds))
                // the scratch files are spent: removed first, their dirty pages are never written
                FileIO.remove(path + "/tmp")
                try FileIO.syncFilesystem(path)
                next = try Store.commit(next, storePath: path)
                summary.committed = true
                options.onPhase?("committed")
                Store.collectGarbage(next, storePath: path)
            } else {
                Store.collectGarbage(before, storePath: path)
            }
            try refresh()
            return summary
        } catch {
            Store.collectGarbage(before, storePath: path)
            throw error
        }
    }
}
