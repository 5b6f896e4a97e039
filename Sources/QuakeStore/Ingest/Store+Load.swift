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

    /// Commits a sync cursor alone (a piece of a sync that held no event), under the writer lock.
    package func commitCursor(_ key: String, _ value: String) throws(QuakeError) {
        let lock = try StoreLock(storePath: path)
        defer { withExtendedLifetime(lock) {} }
        try refresh()
        var m = manifest
        m.setCursor(key, value)
        if m.cursors != manifest.cursors { _ = try Store.commit(m, storePath: path) }
        try refresh()
    }

    public func load(_ paths: [String], options: LoadOptions = LoadOptions()) throws -> LoadSummary {
        let lock = try StoreLock(storePath: path)
        defer { withExtendedLifetime(lock) {} }
        try refresh()
        let before = manifest
        Store.collectGarbage(before, storePath: path)
        do {
            let loader = Loader(storePath: path, manifest: before, options: options)
            var (summary, next) = try loader.run(paths)
            if let c = options.cursor {
                // a load that changed no row commits the cursor on the snapshot it read: same generation
                let changed = next.map { $0.partitions != before.partitions || $0.idBuckets != before.idBuckets }
                    ?? false
                var m = changed ? next ?? before : before
                m.setCursor(c.key, c.value(summary))
                next = m
            }
            if var next, next.partitions != before.partitions || next.idBuckets != before.idBuckets
                || next.cursors != before.cursors {
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
