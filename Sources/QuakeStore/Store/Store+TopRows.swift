import QuakeFormat

extension Store {
    /// Gives `manifest`, the snapshot a load is about to commit over `old`, its magnitude projection
    /// (``TopRows``): the old projection's rows of the partitions the load kept, with the rows
    /// `collected` gathered from the partition files it wrote, cut at the least threshold that
    /// keeps about ``TopRows/capacity(rows:)`` rows. The old file is retired.
    ///
    /// Leaves `manifest` without one, never with a wrong one, when it cannot be built exactly: a
    /// partition written without the collector, kept partitions with no sound old projection
    /// to take their rows from, or a store under ``TopRows/minimumStoreRows``.
    /// - Complexity: O(the old projection's rows + the rows collected), whatever the store's size.
    static func attachTopRows(_ manifest: inout Manifest, old: Manifest,
                              collected: (floor: Double, pieces: [String: RowBatch]),
                              storePath: String) throws(QuakeError) {
        let previous = manifest.top
        manifest.top = nil
        defer {
            if let previous, previous.file != manifest.top?.file,
               !manifest.retired.contains("partitions/" + previous.file) {
                manifest.retired.append("partitions/" + previous.file)
            }
        }
        guard manifest.rows >= TopRows.minimumStoreRows else { return }
        let oldFiles = Set(old.partitions.map(\.file))
        let kept = manifest.partitions.filter { oldFiles.contains($0.file) }
        var floor = collected.floor
        // the candidates: rows of `all` (the old projection's, then the written partitions'), by index
        var all = RowBatch()
        var candidates: [Int] = []
        // the old projection's rows of the partitions the load wrote or emptied, in time and id order
        var replaced: [Int] = []
        if !kept.isEmpty {
            // the kept partitions' rows come from the old projection, complete above its threshold
            guard let fromOld = keptCandidates(manifest, old: old, kept: kept, floor: &floor,
                                               storePath: storePath) else { return }
            (all, candidates, replaced) = fromOld
        }
        var collectedRows = 0
        for entry in manifest.partitions where !oldFiles.contains(entry.file) {
            guard let piece = collected.pieces[entry.file] else { return }
            collectedRows += piece.count
            let start = all.count
            all.append(contentsOf: piece)
            candidates.append(contentsOf: start..<all.count)
        }
        let mags = all.ints[Column.mag.rawValue]
        let counts = TopRowsCollector.counts(candidates.map { mags[$0] })
        guard let threshold = TopRows.threshold(counts, floor: floor,
                                                capacity: TopRows.capacity(rows: manifest.rows)) else {
            return
        }
        let chosen = candidates.filter { mags[$0] != RowBatch.null && ScaledDecimal.double(mags[$0]) >= threshold }
        let hash = TopRows.hash(files: manifest.partitions.map(\.file))
        if let oldTop = old.top, !kept.isEmpty,
           Self.projectionUnchanged(all, oldRows: all.count - collectedRows, replaced: replaced,
                                    chosen: chosen, threshold: threshold, old: oldTop) {
            // a small commit that left the rows at the top as they were: the old file serves
            manifest.top = oldTop
            manifest.top?.partitionsHash = hash
            return
        }
        let rows = all.gather(all.timeIdOrder(of: chosen))
        let file = TopRows.fileName(generation: manifest.generation)
        let entry = try PartitionWriter.write(rows, key: "top", file: file, storePath: storePath,
                                              blockRows: manifest.blockRows)
        manifest.top = TopRows(file: file, rows: entry.rows, minTime: entry.minTime, maxTime: entry.maxTime,
                               bytes: entry.bytes, threshold: threshold, partitionsHash: hash)
    }

    /// The old projection's rows, when it is sound, with the candidates among them (the rows of
    /// the `kept` partitions at least `floor`, raised to the old threshold) and the rows it held
    /// of the partitions the load wrote or emptied; nil when there is no sound old projection.
    private static func keptCandidates(_ manifest: Manifest, old: Manifest, kept: [PartitionEntry],
                                       floor: inout Double,
                                       storePath: String) -> (rows: RowBatch, candidates: [Int], replaced: [Int])? {
        guard let top = old.top, top.partitionsHash == TopRows.hash(files: old.partitions.map(\.file)),
              let rows = try? PartitionReader(storePath: storePath, entry: top.entry).readAll() else { return nil }
        floor = Swift.max(floor, top.threshold)
        let partitioning = manifest.partitioning
        let ordinals = Set(kept.map { partitioning.ordinal($0.minTime) })
        let times = rows.ints[Column.time.rawValue]
        let candidates = TopRowsCollector.rows(of: rows, atLeast: floor)
            .filter { ordinals.contains(partitioning.ordinal(times[$0])) }
        let replaced = (0..<rows.count).filter { !ordinals.contains(partitioning.ordinal(times[$0])) }
        return (rows, candidates, replaced)
    }

    /// True when the projection to build is the old one's rows: the same threshold, and the
    /// rows written (the chosen ones past the old projection's, in `all`) equal, field for field
    /// and with their provenance, the old rows of the partitions written or emptied (`replaced`).
    private static func projectionUnchanged(_ all: RowBatch, oldRows: Int, replaced: [Int], chosen: [Int],
                                            threshold: Double, old: TopRows) -> Bool {
        guard threshold == old.threshold, oldRows == old.rows else { return false }
        let written = all.timeIdOrder(of: chosen.filter { $0 >= oldRows })
        guard written.count == replaced.count else { return false }
        return zip(replaced, written).allSatisfy { all.sameContent($0, all, $1) && all.sameProvenance($0, all, $1) }
    }

    /// Builds `manifest`'s magnitude projection from every partition's rows, one partition at a
    /// time per core (for `repair`); the old one, if any, is retired.
    /// - Complexity: decodes every partition: O(rows).
    static func rebuildTopRows(_ manifest: inout Manifest, storePath: String) throws(QuakeError) {
        let collector = TopRowsCollector(floor: -.infinity, capacity: TopRows.maximumCapacity)
        do {
            _ = try parallelMap(manifest.partitions) { entry in
                collector.offer(try PartitionReader(storePath: storePath, entry: entry).readAll(), file: entry.file)
            }
        } catch let error as QuakeError {
            throw error
        } catch {
            throw .io(storePath, "\(error)")
        }
        var none = manifest
        none.partitions = []
        try attachTopRows(&manifest, old: none, collected: collector.take(), storePath: storePath)
        // the commit syncs the manifest and its folder only
        if manifest.top != nil { try FileIO.syncFilesystem(storePath) }
    }

    /// Whether `manifest`'s magnitude projection was built from its partitions and reads whole
    /// (every chunk's checksum checked).
    static func topRowsAreSound(_ manifest: Manifest, storePath: String) -> Bool {
        guard let top = manifest.top else { return true }
        guard top.partitionsHash == TopRows.hash(files: manifest.partitions.map(\.file)) else { return false }
        guard let rows = try? PartitionReader(storePath: storePath, entry: top.entry).readAll() else { return false }
        return rows.count == top.rows
    }

    /// Drops `manifest`'s magnitude projection when it was built from other partitions than
    /// `manifest`'s (a commit that rewrote partitions without rebuilding it), retiring its file.
    static func dropStaleTopRows(_ manifest: inout Manifest) {
        guard let top = manifest.top,
              top.partitionsHash != TopRows.hash(files: manifest.partitions.map(\.file)) else { return }
        manifest.top = nil
        if !manifest.retired.contains("partitions/" + top.file) { manifest.retired.append("partitions/" + top.file) }
    }

    /// Checks the magnitude projection against `stored`, every stored row whose magnitude is
    /// at least its threshold in (time, id) order: the same rows, column for column.
    func verifyTopRows(_ stored: RowBatch) throws {
        guard let top = manifest.top else { return }
        let file = "partitions/" + top.file
        guard top.partitionsHash == TopRows.hash(files: manifest.partitions.map(\.file)) else {
            throw VerifyFailure(file: file, block: nil, reason: "built from other partitions than the manifest's")
        }
        let rows: RowBatch
        do {
            rows = try PartitionReader(storePath: path, entry: top.entry).readAll()
        } catch {
            throw VerifyFailure(file: file, block: nil, reason: "\(error)", underlying: error)
        }
        guard rows.count == stored.count else {
            throw VerifyFailure(file: file, block: nil, reason: "holds \(rows.count) rows; the partitions hold "
                                + "\(stored.count) of magnitude \(top.threshold) or more")
        }
        for i in 0..<rows.count where !rows.sameContent(i, stored, i) {
            throw VerifyFailure(file: file, block: nil, reason: "row \(i) differs from the stored event "
                                + "\(stored.text[Column.id.rawValue].string(i) ?? "")")
        }
    }
}
