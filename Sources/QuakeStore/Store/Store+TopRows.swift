import QuakeFormat

extension Store {
    /// What a commit did with the magnitude projection.
    package enum TopRowsBuild: String, Sendable, Equatable, Codable {
        /// None is needed: a store too small for one, or no value at or above the floor.
        case none
        /// The store is left without one although it is large enough: the old one read damaged
        /// or was missing, and the rows it held cannot be had without reading every partition
        /// (``repair(path:)`` builds it).
        case missing
        /// The old file serves unchanged.
        case kept
        /// The old file rewritten in its changed columns.
        case patched
        /// Built again from the rows; with `patchesInPlace`, the old file's first blocks copied
        /// when the rows that enter or leave lie after them (``splicedTopRows``).
        case rebuilt
    }

    /// Gives `manifest`, the snapshot a load is about to commit over `old`, its magnitude projection
    /// (``TopRows``): the old projection's rows of the partitions the load kept, with the rows
    /// `collected` gathered from the partition files it wrote, cut at the least threshold that
    /// keeps about ``TopRows/capacity(rows:)`` rows. The old file is retired.
    ///
    /// Leaves `manifest` without one, never with a wrong one, when it cannot be built exactly: a
    /// partition written without the collector, kept partitions with no sound old projection
    /// to take their rows from (`.missing`; a store that had none because it was under
    /// ``TopRows/minimumStoreRows`` reads its kept partitions instead), or a store under that size. With
    /// `patchesInPlace`, a commit that leaves the same rows at the top, at the same places, with
    /// some fields changed, rewrites only the old file's changed columns (``patchedTopRows``), and
    /// one whose rows enter or leave after the old file's first blocks copies those blocks
    /// (``splicedTopRows``).
    /// - Complexity: O(the old projection's rows + the rows collected), whatever the store's size.
    @discardableResult
    static func attachTopRows(_ manifest: inout Manifest, old: Manifest,
                              collected: (floor: Double, pieces: [String: RowBatch]),
                              storePath: String, patchesInPlace: Bool = true) throws(QuakeError) -> TopRowsBuild {
        let previous = manifest.top
        manifest.top = nil
        defer {
            if let previous, previous.file != manifest.top?.file,
               !manifest.retired.contains("partitions/" + previous.file) {
                manifest.retired.append("partitions/" + previous.file)
            }
        }
        guard manifest.rows >= TopRows.minimumStoreRows else { return .none }
        let oldFiles = Set(old.partitions.map(\.file))
        let kept = manifest.partitions.filter { oldFiles.contains($0.file) }
        var floor = collected.floor
        // the old projection's rows by number: candidates (of kept partitions, at least the floor)
        // and the rows of the partitions the load wrote or emptied; only times and magnitudes read
        var fromOld = OldCandidates()
        var written = RowBatch()
        if !kept.isEmpty && old.top == nil && old.rows < TopRows.minimumStoreRows {
            // a store growing past the size for one: its few kept rows are read whole
            for entry in kept {
                guard let rows = try? PartitionReader(storePath: storePath, entry: entry).readAll() else {
                    return .missing
                }
                written.append(contentsOf: rows)
            }
        } else if !kept.isEmpty {
            // the kept partitions' rows come from the old projection, complete above its threshold
            guard let candidates = keptCandidates(manifest, old: old, kept: kept, floor: &floor,
                                                  storePath: storePath) else { return .missing }
            fromOld = candidates
        }
        for entry in manifest.partitions where !oldFiles.contains(entry.file) {
            guard let piece = collected.pieces[entry.file] else { return .missing }
            written.append(contentsOf: piece)
        }
        let writtenMags = written.ints[Column.mag.rawValue]
        var counts = TopRowsCollector.counts(fromOld.candidates.map { fromOld.mags[$0] })
        for (mag, count) in TopRowsCollector.counts(writtenMags) { counts[mag, default: 0] += count }
        guard let threshold = TopRows.threshold(counts, floor: floor,
                                                capacity: TopRows.capacity(rows: manifest.rows)) else {
            return .none
        }
        func strong(_ mag: Int64) -> Bool { mag != RowBatch.null && ScaledDecimal.double(mag) >= threshold }
        let chosenOld = fromOld.candidates.filter { strong(fromOld.mags[$0]) }
        let chosenWritten = written.timeIdOrder(of: (0..<written.count).filter { strong(writtenMags[$0]) })
        let hash = TopRows.hash(files: manifest.partitions.map(\.file))
        let file = TopRows.fileName(generation: manifest.generation)
        switch oldProjectionUse(fromOld, old: old, threshold: threshold, written: written, chosen: chosenWritten,
                                chosenOld: chosenOld.count) {
        case .damaged:
            // a damaged old projection leaves the store without one, as when it cannot be read at all
            return .missing
        case .serves:
            // a small commit that left the rows at the top as they were: the old file serves
            manifest.top = old.top
            manifest.top?.partitionsHash = hash
            return .kept
        case .samePlaces(let stored) where patchesInPlace:
            // the same rows at the top, some fields changed: the old file rewritten where they did
            if let reader = fromOld.reader,
               let patched = patchedTopRows(reader, positions: fromOld.replaced, stored: stored,
                                            rows: written.gather(chosenWritten), blockRows: TopRows.blockRows) {
                let entry = try PartitionWriter.write(patched.batch, key: "top", file: file, storePath: storePath,
                                                      blockRows: TopRows.blockRows, reused: patched.reused)
                manifest.top = TopRows(file: file, rows: entry.rows, minTime: entry.minTime, maxTime: entry.maxTime,
                                       bytes: entry.bytes, threshold: threshold, partitionsHash: hash)
                return .patched
            }
        case .samePlaces, .rebuild:
            break
        }
        let added = written.gather(chosenWritten)
        if patchesInPlace, let reader = fromOld.reader,
           let spliced = splicedTopRows(reader, kept: chosenOld, times: fromOld.times, added: added) {
            // rows enter or leave after the first blocks: those are copied, the rest written again
            let entry = try PartitionWriter.write(spliced.batch, key: "top", file: file, storePath: storePath,
                                                  blockRows: TopRows.blockRows, reused: spliced.reused)
            manifest.top = TopRows(file: file, rows: entry.rows, minTime: entry.minTime, maxTime: entry.maxTime,
                                   bytes: entry.bytes, threshold: threshold, partitionsHash: hash)
            return .rebuilt
        }
        guard let stayed = fromOld.reader == nil ? RowBatch() : try? fromOld.reader?.rows(at: chosenOld) else {
            return .missing
        }
        // the old rows come in the file's (time, id) order, the written ones were put in it
        let rows = RowBatch.merging(stayed, added)
        let entry = try PartitionWriter.write(rows, key: "top", file: file, storePath: storePath,
                                              blockRows: TopRows.blockRows)
        manifest.top = TopRows(file: file, rows: entry.rows, minTime: entry.minTime, maxTime: entry.maxTime,
                               bytes: entry.bytes, threshold: threshold, partitionsHash: hash)
        return .rebuilt
    }

    /// What a commit takes from the old projection: its reader, every row's time and magnitude, the rows
    /// of the kept partitions at least the floor (`candidates`), and the rows of the partitions
    /// the load wrote or emptied (`replaced`), ascending.
    struct OldCandidates {
        var reader: PartitionReader?
        var times: [Int64] = []
        var mags: [Int64] = []
        var candidates: [Int] = []
        var replaced: [Int] = []
    }

    /// The old projection's candidates when it is sound (`floor` raised to its threshold); nil
    /// when there is no sound old projection. Reads its times and magnitudes only.
    private static func keptCandidates(_ manifest: Manifest, old: Manifest, kept: [PartitionEntry],
                                       floor: inout Double, storePath: String) -> OldCandidates? {
        guard let top = old.top, top.partitionsHash == TopRows.hash(files: old.partitions.map(\.file)) else {
            return nil
        }
        let reader = PartitionReader(storePath: storePath, entry: top.entry)
        // a damaged index region is not carried forward by a commit that keeps the file
        guard (try? reader.indexRegionsAreSound()) == true,
              let times = try? reader.ints(.time), let mags = try? reader.ints(.mag) else { return nil }
        floor = Swift.max(floor, top.threshold)
        let partitioning = manifest.partitioning
        let ordinals = Set(kept.map { partitioning.ordinal($0.minTime) })
        var out = OldCandidates(reader: reader, times: times, mags: mags)
        // the projection's rows come in time order: a day's partition is looked up once per run of its rows
        var day = Int64.min
        var dayKept = false
        for row in 0..<times.count {
            let rowDay = times[row] >= 0 ? times[row] / 86_400_000 : -1 - (-1 - times[row]) / 86_400_000
            if rowDay != day {
                day = rowDay
                dayKept = ordinals.contains(partitioning.ordinal(times[row]))
            }
            if !dayKept {
                out.replaced.append(row)
            } else if mags[row] != RowBatch.null && ScaledDecimal.double(mags[row]) >= floor {
                out.candidates.append(row)
            }
        }
        return out
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
    /// (every chunk's and index region's checksum checked).
    static func topRowsAreSound(_ manifest: Manifest, storePath: String) -> Bool {
        guard let top = manifest.top else { return true }
        guard top.partitionsHash == TopRows.hash(files: manifest.partitions.map(\.file)) else { return false }
        let reader = PartitionReader(storePath: storePath, entry: top.entry)
        guard (try? reader.indexRegionsAreSound()) == true, let rows = try? reader.readAll() else { return false }
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
        let reader = PartitionReader(storePath: path, entry: top.entry)
        let rows: RowBatch
        do {
            rows = try reader.readAll()
        } catch {
            throw VerifyFailure(file: file, block: nil, reason: "\(error)", underlying: error)
        }
        // its zone maps and indexes, as a partition's: each the one its rows give
        _ = try verifyColumnBlocks(reader, top.entry)
        try verifyPlaceIndex(reader, rows)
        try verifyAggregates(reader, rows)
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
