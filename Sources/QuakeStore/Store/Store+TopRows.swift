import QuakeFormat

extension Store {
    /// Gives `m`, the snapshot a load is about to commit over `old`, its magnitude projection
    /// (``TopRows``): the old projection's rows of the partitions the load kept, with the rows
    /// `collected` gathered from the partition files it wrote, cut at the least threshold that
    /// keeps about ``TopRows/capacity(rows:)`` rows. The old file is retired.
    ///
    /// Leaves `m` without one, never with a wrong one, when it cannot be built exactly: a
    /// partition written without the collector, kept partitions with no sound old projection
    /// to take their rows from, or a store under ``TopRows/minimumStoreRows``.
    /// - Complexity: O(the old projection's rows + the rows collected), whatever the store's size.
    static func attachTopRows(_ m: inout Manifest, old: Manifest,
                              collected: (floor: Double, pieces: [String: RowBatch]),
                              storePath: String) throws(QuakeError) {
        let previous = m.top
        m.top = nil
        defer {
            if let previous, previous.file != m.top?.file, !m.retired.contains("partitions/" + previous.file) {
                m.retired.append("partitions/" + previous.file)
            }
        }
        guard m.rows >= TopRows.minimumStoreRows else { return }
        let oldFiles = Set(old.partitions.map(\.file))
        let kept = m.partitions.filter { oldFiles.contains($0.file) }
        var floor = collected.floor
        // the candidates: rows of `all` (the old projection's, then the written partitions'), by index
        var all = RowBatch()
        var candidates: [Int] = []
        // the old projection's rows of the partitions the load wrote or emptied, in time and id order
        var replaced: [Int] = []
        if !kept.isEmpty {
            // the kept partitions' rows come from the old projection, complete above its threshold
            guard let t = old.top, t.partitionsHash == TopRows.hash(files: old.partitions.map(\.file)),
                  let rows = try? PartitionReader(storePath: storePath, entry: t.entry).readAll() else { return }
            floor = Swift.max(floor, t.threshold)
            let p = m.partitioning
            let ordinals = Set(kept.map { p.ordinal($0.minTime) })
            let times = rows.ints[Column.time.rawValue]
            candidates = TopRowsCollector.rows(of: rows, atLeast: floor)
                .filter { ordinals.contains(p.ordinal(times[$0])) }
            replaced = (0..<rows.count).filter { !ordinals.contains(p.ordinal(times[$0])) }
            all = rows
        }
        var collectedRows = 0
        for e in m.partitions where !oldFiles.contains(e.file) {
            guard let piece = collected.pieces[e.file] else { return }
            collectedRows += piece.count
            let start = all.count
            all.append(contentsOf: piece)
            candidates.append(contentsOf: start..<all.count)
        }
        let mags = all.ints[Column.mag.rawValue]
        let counts = TopRowsCollector.counts(candidates.map { mags[$0] })
        guard let threshold = TopRows.threshold(counts, floor: floor, capacity: TopRows.capacity(rows: m.rows)) else {
            return
        }
        let chosen = candidates.filter { mags[$0] != RowBatch.null && ScaledDecimal.double(mags[$0]) >= threshold }
        let hash = TopRows.hash(files: m.partitions.map(\.file))
        if let oldTop = old.top, !kept.isEmpty,
           Self.projectionUnchanged(all, oldRows: all.count - collectedRows, replaced: replaced,
                                    chosen: chosen, threshold: threshold, old: oldTop) {
            // a small commit that left the rows at the top as they were: the old file serves
            m.top = oldTop
            m.top?.partitionsHash = hash
            return
        }
        let rows = all.gather(all.timeIdOrder(of: chosen))
        let file = TopRows.fileName(generation: m.generation)
        let e = try PartitionWriter.write(rows, key: "top", file: file, storePath: storePath, blockRows: m.blockRows)
        m.top = TopRows(file: file, rows: e.rows, minTime: e.minTime, maxTime: e.maxTime, bytes: e.bytes,
                        threshold: threshold, partitionsHash: hash)
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

    /// Builds `m`'s magnitude projection from every partition's rows, one partition at a time
    /// per core (for `repair`); the old one, if any, is retired.
    /// - Complexity: decodes every partition: O(rows).
    static func rebuildTopRows(_ m: inout Manifest, storePath: String) throws(QuakeError) {
        let collector = TopRowsCollector(floor: -.infinity, capacity: TopRows.maximumCapacity)
        do {
            _ = try parallelMap(m.partitions) { e in
                collector.offer(try PartitionReader(storePath: storePath, entry: e).readAll(), file: e.file)
            }
        } catch let e as QuakeError {
            throw e
        } catch {
            throw .io(storePath, "\(error)")
        }
        var none = m
        none.partitions = []
        try attachTopRows(&m, old: none, collected: collector.take(), storePath: storePath)
        // the commit syncs the manifest and its folder only
        if m.top != nil { try FileIO.syncFilesystem(storePath) }
    }

    /// Whether `m`'s magnitude projection was built from its partitions and reads whole (every
    /// chunk's checksum checked).
    static func topRowsAreSound(_ m: Manifest, storePath: String) -> Bool {
        guard let t = m.top else { return true }
        guard t.partitionsHash == TopRows.hash(files: m.partitions.map(\.file)) else { return false }
        guard let rows = try? PartitionReader(storePath: storePath, entry: t.entry).readAll() else { return false }
        return rows.count == t.rows
    }

    /// Drops `m`'s magnitude projection when it was built from other partitions than `m`'s (a
    /// commit that rewrote partitions without rebuilding it), retiring its file.
    static func dropStaleTopRows(_ m: inout Manifest) {
        guard let t = m.top, t.partitionsHash != TopRows.hash(files: m.partitions.map(\.file)) else { return }
        m.top = nil
        if !m.retired.contains("partitions/" + t.file) { m.retired.append("partitions/" + t.file) }
    }

    /// Checks the magnitude projection against `stored`, every stored row whose magnitude is
    /// at least its threshold in (time, id) order: the same rows, column for column.
    func verifyTopRows(_ stored: RowBatch) throws {
        guard let t = manifest.top else { return }
        let file = "partitions/" + t.file
        guard t.partitionsHash == TopRows.hash(files: manifest.partitions.map(\.file)) else {
            throw VerifyFailure(file: file, block: nil, reason: "built from other partitions than the manifest's")
        }
        let rows: RowBatch
        do { rows = try PartitionReader(storePath: path, entry: t.entry).readAll() } catch {
            throw VerifyFailure(file: file, block: nil, reason: "\(error)", underlying: error)
        }
        guard rows.count == stored.count else {
            throw VerifyFailure(file: file, block: nil, reason: "holds \(rows.count) rows; the partitions hold "
                                + "\(stored.count) of magnitude \(t.threshold) or more")
        }
        for i in 0..<rows.count where !rows.sameContent(i, stored, i) {
            throw VerifyFailure(file: file, block: nil, reason: "row \(i) differs from the stored event "
                                + "\(stored.text[Column.id.rawValue].string(i) ?? "")")
        }
    }
}
