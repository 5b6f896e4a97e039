import QuakeFormat

extension Store {
    /// Gives `m` the catalog of its partitions: the one it names when that still lists them;
    /// else, when the partitions replaced since that catalog was written fit a
    /// ``CatalogDelta``, the same catalog with a new delta; else a new catalog written whole
    /// (which folds any delta in). Files are written durably, unless `durably` is false (the
    /// caller then flushes them); the old ones are retired. A partition the old catalog lists
    /// keeps its histogram and place summary from there; only the others are opened, for their
    /// mag histograms and place indexes (``PlaceSummary``).
    /// Runs under the writer lock, before the manifest that names the catalog is committed.
    /// - Complexity: one header when the partitions did not change; a delta reads the replaced
    ///   partitions' directories and writes O(their magnitudes and localities); otherwise
    ///   O(partitions × magnitudes) for the counts, plus one directory read per partition the
    ///   old catalog does not list (or lists damaged).
    ///
    /// With `fold`, a catalog with a delta is written whole (``compact(path:)``).
    static func attachCatalog(_ m: inout Manifest, storePath: String, durably: Bool = true,
                              fold: Bool = false) throws(QuakeError) {
        let files = m.partitions.map(\.file)
        let previous = try? openCatalog(m, storePath: storePath, files: nil)
        if let previous, previous.files == files, !fold || m.catalogDelta == nil { return }
        let old = (catalog: m.catalog, checksum: m.catalogChecksum, delta: m.catalogDelta)
        m.catalog = nil
        m.catalogChecksum = 0
        m.catalogDelta = nil
        m.catalogDeltaChecksum = 0
        defer {
            for file in [old.catalog, old.delta].compactMap({ $0 }) where file != m.catalog && file != m.catalogDelta {
                if !m.retired.contains("partitions/" + file) { m.retired.append("partitions/" + file) }
            }
        }
        guard !m.partitions.isEmpty else { return }
        func write(_ name: String, _ bytes: [UInt8]) throws(QuakeError) {
            let file = storePath + "/partitions/" + name
            if durably { try FileIO.writeDurably(file, bytes) } else { try FileIO.writeFile(file, bytes) }
        }
        if !fold, let previous, let name = old.catalog,
           let (bytes, checksum) = try delta(over: previous, m, storePath: storePath) {
            let deltaName = CatalogDelta.fileName(generation: m.generation)
            try write(deltaName, bytes)
            m.catalog = name
            m.catalogChecksum = old.checksum
            m.catalogDelta = deltaName
            m.catalogDeltaChecksum = checksum
            return
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

    /// The catalog `m` names, with its delta laid over it; nil when `m` names none. With
    /// `files`, its partition list must be those.
    package static func openCatalog(_ m: Manifest, storePath: String,
                                    files: [String]?) throws(QuakeError) -> Catalog? {
        guard let name = m.catalog else { return nil }
        let delta = try m.catalogDelta.map { (file) throws(QuakeError) in
            try CatalogDelta(path: storePath + "/partitions/" + file, checksum: m.catalogDeltaChecksum)
        }
        return try Catalog(path: storePath + "/partitions/" + name, checksum: m.catalogChecksum, files: files,
                           delta: delta)
    }

    /// The delta (its bytes and checksum) over `previous`'s own file that gives `m`'s partitions: the old delta's
    /// partitions that `m` keeps, and those `m` replaced (their files opened). Nil when it
    /// cannot serve: another number of partitions, a catalog without a place section, a
    /// magnitude or locality the catalog does not list, more than
    /// ``CatalogDelta/maximumPartitions`` partitions, or a delta past a quarter of the catalog's
    /// size (and past ``CatalogDelta/smallBytes``). The catalog is then written whole.
    private static func delta(over previous: Catalog, _ m: Manifest,
                              storePath: String) throws(QuakeError) -> (bytes: [UInt8], checksum: UInt64)? {
        // the catalog's rows and place section are carried forward: a damaged one is not, the
        // catalog is then written whole from the partitions
        guard previous.partitions == m.partitions.count, (try? previous.checkStoredRows()) != nil,
              let places = try? previous.storedPlaces() else { return nil }
        var entries: [Int: CatalogDelta.Entry] = [:]
        for entry in previous.delta?.entries ?? [] { entries[entry.partition] = entry }
        for (index, partition) in m.partitions.enumerated() where previous.files[index] != partition.file {
            if previous.storedFiles[index] == partition.file {
                entries[index] = nil
                continue
            }
            guard entries.count < CatalogDelta.maximumPartitions || entries[index] != nil else { return nil }
            let reader = PartitionReader(storePath: storePath, entry: partition)
            guard let histogram = Catalog.Histogram(try reader.granules()),
                  histogram.counts.allSatisfy({ $0 <= UInt64(UInt32.max) }) else { return nil }
            var valueIndexes: [Int] = []
            valueIndexes.reserveCapacity(histogram.values.count)
            for value in histogram.values {
                guard let index = previous.valueIndex(value) else { return nil }
                valueIndexes.append(index)
            }
            var placeList: [CatalogDelta.Place]?
            if let summary = try PlaceSummary(reader) {
                var list: [CatalogDelta.Place] = []
                list.reserveCapacity(summary.entries.count)
                for place in summary.entries {
                    guard let ordinal = places.ordinal(of: place.locality) else { return nil }
                    list.append(CatalogDelta.Place(ordinal: ordinal, least: place.least ?? .nan,
                                                   greatest: place.greatest ?? .nan))
                }
                placeList = list
            }
            entries[index] = CatalogDelta.Entry(partition: index, file: partition.file, valueIndexes: valueIndexes,
                                                counts: histogram.counts, nulls: histogram.nulls, places: placeList)
        }
        guard !entries.isEmpty, entries.count <= CatalogDelta.maximumPartitions else { return nil }
        let delta = CatalogDelta(catalogChecksum: previous.checksum, partitions: previous.partitions,
                                 entries: entries.keys.sorted().compactMap { entries[$0] })
        let encoded = delta.encoded()
        guard encoded.bytes.count <= Swift.max(previous.fileBytes / 4, CatalogDelta.smallBytes) else { return nil }
        return encoded
    }

    /// The catalog of `m` patched from `previous`, its snapshot's, when `m` holds as many
    /// partitions and only some files changed (``Catalog/patched(files:changes:)``): the new
    /// files are opened, the kept ones not even looked up. Nil when the patch cannot serve, or
    /// the old catalog reads damaged: the whole catalog is then written.
    private static func patchedCatalog(_ previous: Catalog, _ m: Manifest,
                                       storePath: String) throws(QuakeError) -> (bytes: [UInt8], checksum: UInt64)? {
        let files = m.partitions.map(\.file)
        guard previous.storedFiles.count == files.count else { return nil }
        var changes: [Int: (histogram: Catalog.Histogram, places: PlaceSummary?)] = [:]
        for (index, entry) in m.partitions.enumerated() where previous.storedFiles[index] != entry.file {
            let reader = PartitionReader(storePath: storePath, entry: entry)
            guard let histogram = Catalog.Histogram(try reader.granules()),
                  histogram.counts.allSatisfy({ $0 <= UInt64(UInt32.max) }) else { return nil }
            changes[index] = (histogram, try PlaceSummary(reader))
        }
        return try? previous.patched(files: files, changes: changes)
    }

    /// The catalog of snapshot `m`, mapped once per store handle; nil when `m` has none.
    package func catalog(_ m: Manifest) throws(QuakeError) -> Catalog? {
        guard let name = m.catalog else { return nil }
        let key = name + "+" + (m.catalogDelta ?? "")
        if let cached = cachedCatalog(key) { return cached }
        guard let catalog = try Store.openCatalog(m, storePath: path, files: m.partitions.map(\.file)) else {
            return nil
        }
        cacheCatalog(key, catalog)
        return catalog
    }

    /// Rebuilds, for a sound manifest, the files derived from its partitions that are damaged or
    /// missing: the catalog, the magnitude projection and id-index buckets; nil when all are sound.
    static func repairCatalog(path: String) throws(QuakeError) -> RepairReport? {
        let current = try Manifest.read(path: manifestPath(path))
        let (damagedBuckets, bucketBits) = try damagedIdBuckets(current, storePath: path)
        var catalogSound = true
        if current.catalog != nil {
            do throws(QuakeError) {
                if let catalog = try openCatalog(current, storePath: path, files: current.partitions.map(\.file)) {
                    for i in 0...catalog.partitions { _ = try catalog.row(i) }
                    try catalog.places()?.checkAll()
                }
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
            if let delta = current.catalogDelta { next.retired.append("partitions/" + delta) }
            next.catalogDelta = nil
            next.catalogDeltaChecksum = 0
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
