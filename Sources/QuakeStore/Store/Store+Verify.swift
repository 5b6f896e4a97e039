import QuakeFormat
/// A problem `verify` found: the file (and block) and what is wrong.
package struct VerifyFailure: Error, CustomStringConvertible {
    package let file: String
    package let block: Int?
    package let reason: String
    /// The library error the check met, when it was one: it already says where and what.
    package var underlying: QuakeError? = nil
    package var description: String {
        block.map { "\(file) block \($0): \(reason)" } ?? "\(file): \(reason)"
    }
}

/// What ``Store/verify(progress:)`` read: every block of every file, all sound.
public struct VerifyReport: Sendable, Hashable, Codable {
    /// Partition files read.
    public var partitions: Int
    /// Rows read.
    public var rows: Int
    /// Blocks (column chunks) read and checked.
    public var blocks: Int
}

extension Store {
    /// Reads every block of every file and checks checksums and invariants: row counts, zone
    /// maps, (time, id) order, partition time spans, that every id is stored once and
    /// indexed, and that every kept history transaction reads whole and names only stored
    /// events (loads never delete). Throws the first failure.
    /// Reads every block of every file and checks checksums and invariants (see ``VerifyReport``).
    /// - Throws: ``QuakeError/Kind/corrupt`` naming the first damaged file (and block), or
    ///   ``QuakeError/Kind/io``. ``repair(path:)`` rebuilds a lost or damaged manifest.
    /// - Complexity: reads the whole store once.
    @discardableResult
    public func verify(progress: ((String) -> Void)? = nil) throws(QuakeError) -> VerifyReport {
        do {
            let counts = try verifyAll(progress: progress)
            return VerifyReport(partitions: counts.partitions, rows: counts.rows, blocks: counts.blocks)
        } catch let error as QuakeError {
            throw error
        } catch let failure as VerifyFailure {
            if let underlying = failure.underlying { throw underlying.at(path + "/" + failure.file) }
            throw QuakeError(.corrupt, path: path + "/" + failure.file,
                             position: failure.block.map { .block(column: "", index: $0) },
                             detail: failure.reason)
        } catch {
            throw QuakeError(.corrupt, path: path, detail: "\(error)")
        }
    }

    func verifyAll(progress: ((String) -> Void)?) throws -> (partitions: Int, rows: Int, blocks: Int) {
        var blocksRead = 0
        let index = try readIdIndex()
        let indexed = index.reduce(0) { $0 + ($1?.count ?? 0) }
        guard indexed == manifest.rows else {
            throw VerifyFailure(file: "ids/", block: nil,
                                reason: "index holds \(indexed) ids, manifest \(manifest.rows) rows")
        }
        // every stored id once, and the index entries the rows give
        var stored = SliceInterner(capacity: manifest.rows)
        var expected = [IdHashes](repeating: IdHashes(), count: Manifest.idBucketCount)
        for (bucket, hashes) in index.enumerated() {
            if let hashes {
                expected[bucket].bits = hashes.bits
            }
        }
        var histograms: [Catalog.Histogram?] = []
        var places: [PlaceSummary?] = []
        // the stored rows the magnitude projection must hold, in (time, id) order
        var strongest = RowBatch()
        for entry in manifest.partitions {
            progress?(entry.file)
            let reader = PartitionReader(storePath: path, entry: entry)
            blocksRead += try verifyColumnBlocks(reader, entry)
            // row order, spans and ids
            let batch = try readVerifiedRows(reader, entry)
            histograms.append(Catalog.Histogram(GranuleIndex(batch)))
            places.append(try placeSummary(reader, entry, batch))
            if let top = manifest.top {
                strongest.append(contentsOf: batch.gather(TopRowsCollector.rows(of: batch, atLeast: top.threshold)))
            }
            try verifyPlaceIndex(reader, batch)
            try verifyAggregates(reader, batch)
            try verifyRowOrderAndIds(batch, entry, stored: &stored, expected: &expected)
        }
        try verifyIdBuckets(&expected, index)
        try verifyHistory(stored)
        try verifyCatalog(histograms, places)
        try verifyTopRows(strongest)
        return (manifest.partitions.count, manifest.rows, blocksRead)
    }

    /// The id index the manifest names, one entry per bucket (nil where the bucket has no file).
    private func readIdIndex() throws -> [IdHashes?] {
        var index: [IdHashes?] = []
        for (bucket, file) in manifest.idBuckets.enumerated() {
            guard let file else {
                index.append(nil)
                continue
            }
            do {
                index.append(try IdHashes.read(path: path + "/ids/" + file, bucket: bucket,
                                               partitioning: manifest.partitioning))
            } catch {
                throw VerifyFailure(file: "ids/" + file, block: nil, reason: "\(error)", underlying: error)
            }
        }
        return index
    }

    /// Checks every block of every column of one partition against its zone map; returns the
    /// blocks read.
    func verifyColumnBlocks(_ reader: PartitionReader, _ entry: PartitionEntry) throws -> Int {
        var blocksRead = 0
        for column in Column.allCases {
            let file = "partitions/\(entry.file) column \(column.name)"
            let blocks: [PartitionFile.ChunkInfo]
            do {
                blocks = try reader.blocks(column)
            } catch {
                throw VerifyFailure(file: file, block: nil, reason: "\(error)")
            }
            for (block, info) in blocks.enumerated() {
                blocksRead += 1
                do {
                    switch column.kind {
                    case .timestamp, .decimal:
                        try verifyNumericBlock(reader, column, block: block, info: info, file: file)
                    default:
                        try verifyTextBlock(reader, column, block: block, info: info, file: file)
                    }
                } catch let failure as VerifyFailure {
                    throw failure
                } catch {
                    throw VerifyFailure(file: file, block: block, reason: "\(error)")
                }
            }
        }
        return blocksRead
    }

    /// A timestamp or decimal block: its nulls and min/max match the zone map, and a decimal
    /// block decodes as doubles to the values written.
    private func verifyNumericBlock(_ reader: PartitionReader, _ column: Column, block: Int,
                                    info: PartitionFile.ChunkInfo, file: String) throws {
        func fail(_ why: String) -> VerifyFailure { VerifyFailure(file: file, block: block, reason: why) }
        let values = try reader.ints(column, block: block)
        var nulls = 0
        var lo = Int64.max
        var hi = Int64.min
        var doubleLo = Double.infinity
        var doubleHi = -Double.infinity
        for value in values {
            if value == RowBatch.null {
                nulls += 1
                continue
            }
            lo = min(lo, value)
            hi = max(hi, value)
            let asDouble = ScaledDecimal.double(value)
            doubleLo = min(doubleLo, asDouble)
            doubleHi = max(doubleHi, asDouble)
        }
        guard nulls == Int(info.nulls) else { throw fail("zone map says \(info.nulls) nulls, block has \(nulls)") }
        if column.kind == .decimal, case .doubles(let doubles) = try reader.decode(column, block: block, as: .doubles) {
            for i in 0..<values.count
            where values[i] != RowBatch.null && doubles[i].bitPattern != ScaledDecimal.double(values[i]).bitPattern {
                let written = ScaledDecimal.string(values[i]) ?? "null"
                throw fail("row \(i) decodes to \(doubles[i]) as a double, \(written) as written")
            }
        }
        if nulls < values.count {
            let matches = column.kind == .timestamp
                ? (lo == info.min && hi == info.max)
                : (doubleLo == info.minDouble && doubleHi == info.maxDouble)
            guard matches else { throw fail("zone map min/max do not match the values") }
        }
    }

    /// A text or category block: its row count and nulls match the footer, and its bytes are
    /// valid UTF-8.
    private func verifyTextBlock(_ reader: PartitionReader, _ column: Column, block: Int,
                                 info: PartitionFile.ChunkInfo, file: String) throws {
        func fail(_ why: String) -> VerifyFailure { VerifyFailure(file: file, block: block, reason: why) }
        let arena = try reader.arena(column, block: block)
        guard arena.count == Int(info.rows) else { throw fail("decoded \(arena.count) rows, footer says \(info.rows)") }
        var nulls = 0
        for i in 0..<arena.count where arena.isNull(i) {
            nulls += 1
        }
        guard nulls == Int(info.nulls) else { throw fail("zone map says \(info.nulls) nulls, block has \(nulls)") }
        // SAFETY: `$0` is used only inside the closure; validUTF8 reads below its count.
        if !arena.bytes.withUnsafeBytes({ RowBatch.validUTF8($0) }) { throw fail("invalid UTF-8") }
    }

    /// All rows of one partition, after checking that its granule index is the one they give.
    private func readVerifiedRows(_ reader: PartitionReader, _ entry: PartitionEntry) throws -> RowBatch {
        let file = "partitions/\(entry.file)"
        let batch: RowBatch
        do {
            batch = try reader.readAll()
        } catch {
            throw VerifyFailure(file: file, block: nil, reason: "\(error)", underlying: error)
        }
        do {
            guard try reader.granules() == GranuleIndex(batch) else {
                throw VerifyFailure(file: file, block: nil, reason: "granule index does not match the rows")
            }
        } catch let failure as VerifyFailure {
            throw failure
        } catch {
            throw VerifyFailure(file: file, block: nil, reason: "\(error)", underlying: error as? QuakeError)
        }
        return batch
    }

    /// The place summary the catalog holds for a partition with a place index, else nil.
    private func placeSummary(_ reader: PartitionReader, _ entry: PartitionEntry,
                              _ batch: RowBatch) throws -> PlaceSummary? {
        do {
            return try reader.placeIndex() == nil
                ? nil
                : PlaceSummary(places: batch.text[Column.place.rawValue], mags: batch.ints[Column.mag.rawValue])
        } catch {
            throw VerifyFailure(file: "partitions/\(entry.file)", block: nil, reason: "\(error)", underlying: error)
        }
    }

    /// The partition's rows lie in its span in (time, id) order, each id is stored once, and
    /// each row adds the index entry it gives to `expected`.
    private func verifyRowOrderAndIds(_ batch: RowBatch, _ entry: PartitionEntry, stored: inout SliceInterner,
                                      expected: inout [IdHashes]) throws {
        let span = manifest.partitioning.span(entry.minTime)
        let times = batch.ints[Column.time.rawValue]
        let ids = batch.text[Column.id.rawValue]
        let file = "partitions/\(entry.file)"
        guard times.first == entry.minTime, times.last == entry.maxTime else {
            throw VerifyFailure(file: file, block: nil, reason: "time span differs from the manifest")
        }
        for i in 0..<batch.count {
            let block = i / manifest.blockRows
            guard times[i] >= span.start, times[i] < span.end else {
                throw VerifyFailure(file: file, block: block, reason: "row \(i) lies outside partition \(entry.key)")
            }
            if i > 0 {
                guard times[i - 1] < times[i] || (times[i - 1] == times[i] && ids.compare(i - 1, ids, i) < 0) else {
                    throw VerifyFailure(file: file, block: block,
                                        reason: "rows \(i - 1) and \(i) are out of (time, id) order")
                }
            }
            let before = stored.count
            // SAFETY: i < batch.count and the decoded id arena's ends lie in its bytes, so the slice lies in
            // `raw`; intern copies the bytes and hash only reads them.
            let (ordinal, hash) = ids.bytes.withUnsafeBytes { raw in
                let slice = UnsafeRawBufferPointer(rebasing: raw[ids.range(i)])
                return (stored.intern(slice), IdHashes.hash(slice))
            }
            guard ordinal == before else {
                throw VerifyFailure(file: file, block: block, reason: "id \(ids.string(i) ?? "") is stored twice")
            }
            let bucket = IdHashes.bucket(hash)
            expected[bucket].append(key: expected[bucket].key(hash), ordinal: manifest.partitioning.ordinal(times[i]),
                                    hint: IdHashes.hint(time: times[i], partitionStart: span.start))
        }
    }

    /// Every id bucket lists exactly the index entries the stored rows give: keys, partitions,
    /// and minute hints (an entry of unknown minute, from a file written before hints, stands
    /// for any of its key and partition).
    private func verifyIdBuckets(_ expected: inout [IdHashes], _ index: [IdHashes?]) throws {
        for bucket in 0..<Manifest.idBucketCount {
            expected[bucket].sort()
            let stored = index[bucket] ?? IdHashes(bits: expected[bucket].bits)
            guard expected[bucket].keys == stored.keys, expected[bucket].ordinals == stored.ordinals,
                  Store.hintsAgree(expected[bucket], stored) else {
                let file = manifest.idBuckets[bucket].map { "ids/" + $0 } ?? "ids/"
                throw VerifyFailure(file: file, block: nil,
                                    reason: "bucket \(bucket) does not list the stored events of its ids")
            }
        }
    }

    /// Whether every run of entries sharing a key and a partition has, in `stored`, hints that are
    /// `expected`'s or unknown (both sorted, with equal keys and ordinals).
    static func hintsAgree(_ expected: IdHashes, _ stored: IdHashes) -> Bool {
        var start = 0
        while start < stored.count {
            var end = start + 1
            while end < stored.count, stored.keys[end] == stored.keys[start],
                  stored.ordinals[end] == stored.ordinals[start] { end += 1 }
            // the known stored hints must be among the expected ones, counted: both runs are sorted
            var expectedAt = start
            for storedAt in start..<end where stored.hints[storedAt] != IdHashes.unknownHint {
                while expectedAt < end, expected.hints[expectedAt] < stored.hints[storedAt] { expectedAt += 1 }
                guard expectedAt < end, expected.hints[expectedAt] == stored.hints[storedAt] else { return false }
                expectedAt += 1
            }
            start = end
        }
        return true
    }

    /// The place index, when the partition has one, is byte for byte the one its stored rows give.
    func verifyPlaceIndex(_ reader: PartitionReader, _ batch: RowBatch) throws {
        let file = "partitions/\(reader.entry.file)"
        do {
            guard let stored = try reader.placeIndexBytes() else { return }
            let directory = try reader.directory()
            var codes: [UInt32] = []
            codes.reserveCapacity(batch.count)
            for (block, rows) in directory.blockSizes.enumerated() {
                codes.append(contentsOf: try reader.placeCodes(block: block, rows: 0..<rows, dictionary: false).1)
            }
            guard PlaceIndex.encode(mags: batch.ints[Column.mag.rawValue], codes: codes, blockRows: directory.blockRows,
                                    granules: directory.granules) == stored else {
                throw VerifyFailure(file: file, block: nil, reason: "place index does not match the rows")
            }
        } catch let failure as VerifyFailure {
            throw failure
        } catch {
            throw VerifyFailure(file: file, block: nil, reason: "\(error)", underlying: error as? QuakeError)
        }
    }

    /// The unit aggregates, when the partition has them, are byte for byte the ones its stored
    /// rows give.
    func verifyAggregates(_ reader: PartitionReader, _ batch: RowBatch) throws {
        let file = "partitions/\(reader.entry.file)"
        do {
            guard let stored = try reader.unitAggregateBytes() else { return }
            let directory = try reader.directory()
            var codes: [[UInt32]] = []
            for column in UnitAggregates.groupColumns {
                var list: [UInt32] = []
                list.reserveCapacity(batch.count)
                for k in directory.blockSizes.indices {
                    guard case .category(let category) = try reader.decode(column, block: k) else {
                        throw VerifyFailure(file: file, block: k, reason: "column \(column) is not a category")
                    }
                    list.append(contentsOf: category.codes)
                }
                codes.append(list)
            }
            guard UnitAggregates.encode(batch, codes: codes, blockRows: directory.blockRows) == stored else {
                throw VerifyFailure(file: file, block: nil, reason: "unit aggregates do not match the rows")
            }
        } catch let failure as VerifyFailure {
            throw failure
        } catch {
            throw VerifyFailure(file: file, block: nil, reason: "\(error)", underlying: error as? QuakeError)
        }
    }

    /// The catalog, when the manifest names one, is byte for byte the one the partitions' rows
    /// give: their magnitude counts, and the localities of their places with magnitude bounds.
    private func verifyCatalog(_ histograms: [Catalog.Histogram?], _ places: [PlaceSummary?]) throws {
        guard let name = manifest.catalog else { return }
        if let delta = manifest.catalogDelta {
            return try verifyCatalog(name, delta: delta, histograms, places)
        }
        let file = "partitions/" + name
        let present = histograms.compactMap { $0 }
        guard present.count == histograms.count,
              let (bytes, checksum) = Catalog.encode(files: manifest.partitions.map(\.file), histograms: present,
                                                 places: places) else {
            throw VerifyFailure(file: file, block: nil, reason: "names a catalog the partitions cannot have")
        }
        do {
            guard checksum == manifest.catalogChecksum,
                  try FileIO.readFile(path + "/" + file, limit: Catalog.sizeLimit + (1 << 20)) == bytes else {
                throw VerifyFailure(file: file, block: nil, reason: "does not match the partitions' rows")
            }
        } catch let failure as VerifyFailure {
            throw failure
        } catch {
            throw VerifyFailure(file: file, block: nil, reason: "\(error)", underlying: error as? QuakeError)
        }
    }

    /// A catalog with a delta gives, for every partition, the histogram and place summary its
    /// rows give; so every run of partitions counts what its rows hold. (The catalog's own
    /// counts of the delta's partitions are stale by design, and only their checksums are checked.)
    private func verifyCatalog(_ name: String, delta: String, _ histograms: [Catalog.Histogram?],
                               _ places: [PlaceSummary?]) throws {
        var file = "partitions/" + delta
        do {
            let files = manifest.partitions.map(\.file)
            guard let catalog = try Store.openCatalog(manifest, storePath: path, files: files) else { return }
            file = "partitions/" + name
            let first = try catalog.row(0)
            guard first.allSatisfy({ $0 == 0 }) else {
                throw VerifyFailure(file: file, block: nil, reason: "counts rows before the first partition")
            }
            _ = try catalog.row(catalog.partitions)
            guard let sections = try catalog.places() else {
                throw VerifyFailure(file: file, block: nil, reason: "has a delta but no place section")
            }
            try sections.checkAll()
            file = "partitions/" + delta
            for (index, histogram) in histograms.enumerated() {
                guard let histogram, try catalog.histogram(partition: index) == histogram,
                      try sections.summary(partition: index) == places[index] else {
                    throw VerifyFailure(file: file, block: nil,
                                        reason: "does not match the rows of partition \(manifest.partitions[index].key)")
                }
            }
        } catch let failure as VerifyFailure {
            throw failure
        } catch let error as QuakeError {
            let named = error.path.map { $0.hasSuffix(".\(CatalogDelta.fileExtension)") } ?? false
            throw VerifyFailure(file: named ? "partitions/" + delta : "partitions/" + name, block: nil,
                                reason: "\(error)", underlying: error)
        }
    }

    /// Every kept transaction decodes, its counts add up, and every id it inserted or
    /// updated is stored.
    private func verifyHistory(_ indexed: SliceInterner) throws {
        for generation in manifest.history.generations {
            let file = "history/" + HistoryFile.name(generation: generation)
            func fail(_ why: String) -> VerifyFailure { VerifyFailure(file: file, block: nil, reason: why) }
            do {
                let history = try HistoryFile.read(path: HistoryFile.path(store: path, generation: generation))
                guard history.generation == generation else { throw fail("holds generation \(history.generation)") }
                for i in history.sections.indices {
                    let changes = try history.changes(i)
                    for list in [changes.inserted, changes.updated] {
                        // SAFETY: the list's ends lie in its bytes and $0 < list.count; lookup reads the slice.
                        let missing = list.bytes.withUnsafeBytes { raw in
                            (0..<list.count).first {
                                indexed.lookup(UnsafeRawBufferPointer(rebasing: raw[list.range($0)])) == nil
                            }
                        }
                        if let row = missing { throw fail("event \(list.string(row) ?? "") is not in the store") }
                    }
                }
            } catch let failure as VerifyFailure {
                throw failure
            } catch let error as QuakeError {
                // it names its file (the transaction, or the copy of a partition's ids) and why
                throw error.at(HistoryFile.path(store: path, generation: generation))
            } catch {
                throw fail("\(error)")
            }
        }
    }
}
