import QuakeFormat

extension Store {
    /// Gives `m` the catalog of its partitions: the one it names when that still lists them,
    /// else a new one written (durably, unless `durably` is false: the caller then flushes it),
    /// the old one retired. A partition the old catalog lists
    /// keeps its histogram and place summary from there; only the others are opened, for their
    /// mag histograms and place indexes (``PlaceSummary``).
    /// Runs under the writer lock, before the manifest that names the catalog is committed.
    /// - Complexity: one header when the partitions did not change; else O(partitions ×
    ///   magnitudes) for the counts, plus one directory read per partition the old catalog
    ///   does not list (or lists damaged).
    static func attachCatalog(_ m: inout Manifest, storePath: String, durably: Bool = true) throws(QuakeError) {
        let files = m.partitions.map(\.file)
        let previous = m.catalog.flatMap {
            try? Catalog(path: storePath + "/partitions/" + $0, checksum: m.catalogChecksum, files: nil)
        }
        if let previous, previous.files == files { return }
        let old = m.catalog
        m.catalog = nil
        m.catalogChecksum = 0
        defer {
            if let old, old != m.catalog, !m.retired.contains("partitions/" + old) {
                m.retired.append("partitions/" + old)
            }
        }
        guard !m.partitions.isEmpty else { return }
        func write(_ name: String, _ bytes: [UInt8]) throws(QuakeError) {
            let file = storePath + "/partitions/" + name
            if durably { try FileIO.writeDurably(file, bytes) } else { try FileIO.writeFile(file, bytes) }
        }
        if let previous, let (bytes, checksum) = try patchedCatalog(previous, m, storePath: storePath) {
            let name = Catalog.fileName(generation: m.generation)
            try write(name, bytes)
            m.catalog = name
            m.catalogChecksum = checksum
            return
        }
        let reuse = CatalogReuse(previous)
        let summaries: [(Catalog.Histogram?, PlaceSummary?)]
        do {
            summaries = try parallelMap(m.partitions) { entry in
                if let kept = reuse.summary(of: entry) { return kept }
                let reader = PartitionReader(storePath: storePath, entry: entry)
                return (Catalog.Histogram(try reader.granules()), try PlaceSummary(reader))
            }
        } catch let error as QuakeError {
            throw error
        } catch {
            throw .io(storePath, "\(error)")
        }
        let histograms = summaries.compactMap(\.0)
        guard histograms.count == summaries.count,
              let (bytes, checksum) = Catalog.encode(files: files, histograms: histograms, places: summaries.map(\.1))
        else { return }
        let name = Catalog.fileName(generation: m.generation)
        try write(name, bytes)
        m.catalog = name
        m.catalogChecksum = checksum
    }

    /// The catalog of `m` patched from `previous`, its snapshot's, when `m` holds as many
    /// partitions and only some files changed (``Catalog/patched(files:changes:)``): the new
    /// files are opened, the kept ones not even looked up. Nil when the patch cannot serve, or
    /// the old catalog reads damaged: the whole catalog is then written.
    private static func patchedCatalog(_ previous: Catalog, _ m: Manifest,
                                       storePath: String) throws(QuakeError) -> (bytes: [UInt8], checksum: UInt64)? {
        let files = m.partitions.map(\.file)
        guard previous.files.count == files.count else { return nil }
        var changes: [Int: (histogram: Catalog.Histogram, places: PlaceSummary?)] = [:]
        for (index, entry) in m.partitions.enumerated() where previous.files[index] != entry.file {
            let reader = PartitionReader(storePath: storePath, entry: entry)
            guard let histogram = Catalog.Histogram(try reader.granules()) else { return nil }
            changes[index] = (histogram, try PlaceSummary(reader))
        }
        return try? previous.patched(files: files, changes: changes)
    }

    /// The catalog of snapshot `m`, mapped once per store handle; nil when `m` has none.
    package func catalog(_ m: Manifest) throws(QuakeError) -> Catalog? {
        guard let name = m.catalog else { return nil }
        if let cached = cachedCatalog(name) { return cached }
        let catalog = try Catalog(path: path + "/partitions/" + name, checksum: m.catalogChecksum,
                                  files: m.partitions.map(\.file))
        cacheCatalog(name, catalog)
        return catalog
    }

    /// Rebuilds, for a sound manifest, the files derived from its partitions that are damaged or
    /// missing: the catalog, the magnitude projection and id-index buckets; nil when all are sound.
    static func repairCatalog(path: String) throws(QuakeError) -> RepairReport? {
        let current = try Manifest.read(path: manifestPath(path))
        let (damagedBuckets, bucketBits) = try damagedIdBuckets(current, storePath: path)
        var catalogSound = true
        if let name = current.catalog {
            do throws(QuakeError) {
                let catalog = try Catalog(path: path + "/partitions/" + name, checksum: current.catalogChecksum,
                                          files: current.partitions.map(\.file))
                for i in 0...catalog.partitions { _ = try catalog.row(i) }
                try catalog.places()?.checkAll()
            } catch {
                guard error.isCorruption || error.kind == .notFound || error.kind == .io else { throw error }
                catalogSound = false
            }
        }
        var next = current
        next.generation += 1
        let topMissing = current.top == nil && current.rows >= TopRows.minimumStoreRows
        var rebuiltProjection = false
        if topMissing || !topRowsAreSound(current, storePath: path) {
            try rebuildTopRows(&next, storePath: path)
            if topMissing && next.top == nil && catalogSound && damagedBuckets.isEmpty { return nil }
            rebuiltProjection = next.top != nil || current.top != nil
        } else if catalogSound && damagedBuckets.isEmpty {
            return nil
        }
        try rebuildIdBuckets(damagedBuckets, bits: bucketBits, &next, storePath: path)
        if !catalogSound, let name = current.catalog {
            next.catalog = nil
            next.catalogChecksum = 0
            next.retired.append("partitions/" + name)
        }
        next.retired = Array(Set(current.retired + next.retired)).sorted()
        next = try commit(next, storePath: path)
        var report = RepairReport(generation: next.generation, partitions: next.partitions.count, rows: next.rows,
                                  skipped: [], movedAside: nil)
        report.catalogOnly = true
        report.rebuiltCatalog = !catalogSound
        report.rebuiltProjection = rebuiltProjection
        report.rebuiltIdBuckets = damagedBuckets.count
        return report
    }
}

/// What the catalog of the snapshot before gives a commit: the histogram and place summary of
/// each partition it lists, read from its rows instead of the partition's file.
private struct CatalogReuse: Sendable {
    private let catalog: Catalog?
    private let places: Catalog.Places?
    private let indexes: [String: Int]

    init(_ catalog: Catalog?) {
        self.catalog = catalog
        places = try? catalog?.places()
        var indexes: [String: Int] = [:]
        for (index, file) in (catalog?.files ?? []).enumerated() { indexes[file] = index }
        self.indexes = indexes
    }

    /// `entry`'s histogram and place summary; nil when the old catalog does not list its file,
    /// has no place section, or reads damaged or at odds with the rows the manifest gives it
    /// (the partition is then opened).
    func summary(of entry: PartitionEntry) -> (Catalog.Histogram?, PlaceSummary?)? {
        guard let catalog, let places, let index = indexes[entry.file],
              let histogram = try? catalog.histogram(partition: index),
              histogram.counts.reduce(histogram.nulls, &+) == UInt64(entry.rows),
              let summary = try? places.summary(partition: index) else { return nil }
        return (histogram, summary)
    }
}
