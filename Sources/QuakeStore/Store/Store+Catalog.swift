import QuakeFormat

extension Store {
    /// Gives `m` the catalog of its partitions: the one it names when that still lists them,
    /// else a new one written (durably) from the partitions' mag histograms and place indexes
    /// (``PlaceSummary``), the old one retired.
    /// Runs under the writer lock, before the manifest that names the catalog is committed.
    /// - Complexity: O(partitions) directory reads when the partitions changed, else one header.
    static func attachCatalog(_ m: inout Manifest, storePath: String) throws(QuakeError) {
        let files = m.partitions.map(\.file)
        if let c = m.catalog,
           (try? Catalog(path: storePath + "/partitions/" + c, checksum: m.catalogChecksum, files: files)) != nil {
            return
        }
        let old = m.catalog
        m.catalog = nil
        m.catalogChecksum = 0
        defer {
            if let old, old != m.catalog, !m.retired.contains("partitions/" + old) { m.retired.append("partitions/" + old) }
        }
        guard !m.partitions.isEmpty else { return }
        let summaries: [(Catalog.Histogram?, PlaceSummary?)]
        do {
            summaries = try parallelMap(m.partitions) { e in
                let r = PartitionReader(storePath: storePath, entry: e)
                return (Catalog.Histogram(try r.granules()), try PlaceSummary(r))
            }
        } catch let e as QuakeError {
            throw e
        } catch {
            throw .io(storePath, "\(error)")
        }
        let histograms = summaries.compactMap(\.0)
        guard histograms.count == summaries.count,
              let (bytes, checksum) = Catalog.encode(files: files, histograms: histograms, places: summaries.map(\.1))
        else { return }
        let name = Catalog.fileName(generation: m.generation)
        try FileIO.writeDurably(storePath + "/partitions/" + name, bytes)
        m.catalog = name
        m.catalogChecksum = checksum
    }

    /// The catalog of snapshot `m`, mapped once per store handle; nil when `m` has none.
    package func catalog(_ m: Manifest) throws(QuakeError) -> Catalog? {
        guard let name = m.catalog else { return nil }
        if let c = cachedCatalog(name) { return c }
        let c = try Catalog(path: path + "/partitions/" + name, checksum: m.catalogChecksum,
                            files: m.partitions.map(\.file))
        cacheCatalog(name, c)
        return c
    }

    /// Rebuilds a damaged or missing catalog of a sound manifest, and a damaged or missing
    /// magnitude projection; nil when both are sound.
    static func repairCatalog(path: String) throws(QuakeError) -> RepairReport? {
        let m = try Manifest.read(path: manifestPath(path))
        var catalogSound = true
        if let name = m.catalog {
            do throws(QuakeError) {
                let c = try Catalog(path: path + "/partitions/" + name, checksum: m.catalogChecksum,
                                    files: m.partitions.map(\.file))
                for i in 0...c.partitions { _ = try c.row(i) }
                try c.places()?.checkAll()
            } catch {
                guard error.isCorruption || error.kind == .notFound || error.kind == .io else { throw error }
                catalogSound = false
            }
        }
        var n = m
        n.generation += 1
        let topMissing = m.top == nil && m.rows >= TopRows.minimumStoreRows
        if topMissing || !topRowsAreSound(m, storePath: path) {
            try rebuildTopRows(&n, storePath: path)
            if topMissing && n.top == nil && catalogSound { return nil }
        } else if catalogSound {
            return nil
        }
        if !catalogSound, let name = m.catalog {
            n.catalog = nil
            n.catalogChecksum = 0
            n.retired.append("partitions/" + name)
        }
        n.retired = Array(Set(m.retired + n.retired)).sorted()
        n = try commit(n, storePath: path)
        var report = RepairReport(generation: n.generation, partitions: n.partitions.count, rows: n.rows,
                                  skipped: [], movedAside: nil)
        report.catalogOnly = true
        return report
    }
}
