import QuakeFormat
/// A problem `verify` found: the file (and block) and what is wrong.
package struct VerifyFailure: Error, CustomStringConvertible {
    package let file: String
    package let block: Int?
    package let reason: String
    /// The library error the check met, when it was one: it already says where and what.
    package var underlying: QuakeError? = nil
    package var description: String { block.map { "\(file) block \($0): \(reason)" } ?? "\(file): \(reason)" }
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
            let r = try verifyAll(progress: progress)
            return VerifyReport(partitions: r.partitions, rows: r.rows, blocks: r.blocks)
        } catch let e as QuakeError {
            throw e
        } catch let f as VerifyFailure {
            if let u = f.underlying { throw u.at(path + "/" + f.file) }
            throw QuakeError(.corrupt, path: path + "/" + f.file, position: f.block.map { .block(column: "", index: $0) },
                             detail: f.reason)
        } catch {
            throw QuakeError(.corrupt, path: path, detail: "\(error)")
        }
    }

    func verifyAll(progress: ((String) -> Void)?) throws -> (partitions: Int, rows: Int, blocks: Int) {
        var blocksRead = 0
        var index: [IdHashes?] = []
        for (b, f) in manifest.idBuckets.enumerated() {
            guard let f else { index.append(nil); continue }
            do {
                index.append(try IdHashes.read(path: path + "/ids/" + f, bucket: b, partitioning: manifest.partitioning))
            } catch {
                throw VerifyFailure(file: "ids/" + f, block: nil, reason: "\(error)", underlying: error)
            }
        }
        let indexed = index.reduce(0) { $0 + ($1?.count ?? 0) }
        guard indexed == manifest.rows else {
            throw VerifyFailure(file: "ids/", block: nil, reason: "index holds \(indexed) ids, manifest \(manifest.rows) rows")
        }
        // every stored id once, and the index entries the rows give
        var stored = SliceInterner(capacity: manifest.rows)
        var expected = [IdHashes](repeating: IdHashes(), count: Manifest.idBucketCount)
        for (b, h) in index.enumerated() { if let h { expected[b].bits = h.bits } }
        var histograms: [Catalog.Histogram?] = []
        var places: [PlaceSummary?] = []
        // the stored rows the magnitude projection must hold, in (time, id) order
        var strongest = RowBatch()
        for e in manifest.partitions {
            progress?(e.file)
            let r = PartitionReader(storePath: path, entry: e)
            let span = manifest.partitioning.span(e.minTime)
            for c in Column.allCases {
                let file = "partitions/\(e.file) column \(c.name)"
                func fail(_ k: Int?, _ why: String) -> VerifyFailure { VerifyFailure(file: file, block: k, reason: why) }
                let blocks: [PartitionFile.ChunkInfo]
                do { blocks = try r.blocks(c) } catch { throw fail(nil, "\(error)") }
                for (k, info) in blocks.enumerated() {
                    blocksRead += 1
                    do {
                        switch c.kind {
                        case .timestamp, .decimal:
                            let v = try r.ints(c, block: k)
                            var nulls = 0
                            var lo = Int64.max, hi = Int64.min
                            var dlo = Double.infinity, dhi = -Double.infinity
                            for x in v {
                                if x == RowBatch.null { nulls += 1; continue }
                                lo = min(lo, x); hi = max(hi, x)
                                let d = ScaledDecimal.double(x); dlo = min(dlo, d); dhi = max(dhi, d)
                            }
                            guard nulls == Int(info.nulls) else { throw fail(k, "zone map says \(info.nulls) nulls, block has \(nulls)") }
                            if c.kind == .decimal, case .doubles(let d) = try r.decode(c, block: k, as: .doubles) {
                                for i in 0..<v.count where v[i] != RowBatch.null && d[i].bitPattern != ScaledDecimal.double(v[i]).bitPattern {
                                    throw fail(k, "row \(i) decodes to \(d[i]) as a double, \(ScaledDecimal.string(v[i]) ?? "null") as written")
                                }
                            }
                            if nulls < v.count {
                                let ok = c.kind == .timestamp ? (lo == info.min && hi == info.max) : (dlo == info.minDouble && dhi == info.maxDouble)
                                guard ok else { throw fail(k, "zone map min/max do not match the values") }
                            }
                        default:
                            let a = try r.arena(c, block: k)
                            guard a.count == Int(info.rows) else { throw fail(k, "decoded \(a.count) rows, footer says \(info.rows)") }
                            var nulls = 0
                            for i in 0..<a.count where a.isNull(i) { nulls += 1 }
                            guard nulls == Int(info.nulls) else { throw fail(k, "zone map says \(info.nulls) nulls, block has \(nulls)") }
                            // SAFETY: `$0` is used only inside the closure; validUTF8 reads below its count.
                            if !a.bytes.withUnsafeBytes({ RowBatch.validUTF8($0) }) { throw fail(k, "invalid UTF-8") }
                        }
                    } catch let f as VerifyFailure { throw f } catch { throw fail(k, "\(error)") }
                }
            }
            // row order, spans and ids
            let batch: RowBatch
            do { batch = try r.readAll() } catch { throw VerifyFailure(file: "partitions/\(e.file)", block: nil, reason: "\(error)",
                                underlying: error) }
            do {
                guard try r.granules() == GranuleIndex(batch) else {
                    throw VerifyFailure(file: "partitions/\(e.file)", block: nil, reason: "granule index does not match the rows")
                }
            } catch let f as VerifyFailure { throw f } catch {
                throw VerifyFailure(file: "partitions/\(e.file)", block: nil, reason: "\(error)",
                                    underlying: error as? QuakeError)
            }
            histograms.append(Catalog.Histogram(GranuleIndex(batch)))
            do {
                places.append(try r.placeIndex() == nil ? nil
                              : PlaceSummary(places: batch.text[Column.place.rawValue], mags: batch.ints[Column.mag.rawValue]))
            } catch {
                throw VerifyFailure(file: "partitions/\(e.file)", block: nil, reason: "\(error)",
                                    underlying: error)
            }
            if let t = manifest.top {
                strongest.append(contentsOf: batch.gather(TopRowsCollector.rows(of: batch, atLeast: t.threshold)))
            }
            try verifyPlaceIndex(r, batch)
            try verifyAggregates(r, batch)
            let t = batch.ints[Column.time.rawValue]
            let ids = batch.text[Column.id.rawValue]
            let file = "partitions/\(e.file)"
            guard t.first == e.minTime, t.last == e.maxTime else { throw VerifyFailure(file: file, block: nil, reason: "time span differs from the manifest") }
            for i in 0..<batch.count {
                guard t[i] >= span.start, t[i] < span.end else { throw VerifyFailure(file: file, block: i / manifest.blockRows, reason: "row \(i) lies outside partition \(e.key)") }
                if i > 0 {
                    guard t[i - 1] < t[i] || (t[i - 1] == t[i] && ids.compare(i - 1, ids, i) < 0) else {
                        throw VerifyFailure(file: file, block: i / manifest.blockRows, reason: "rows \(i - 1) and \(i) are out of (time, id) order")
                    }
                }
                let before = stored.count
                // SAFETY: i < batch.count and the decoded id arena's ends lie in its bytes, so the slice lies in
                // `raw`; intern copies the bytes and hash only reads them.
                let (k, h) = ids.bytes.withUnsafeBytes { raw in
                    let p = UnsafeRawBufferPointer(rebasing: raw[ids.range(i)])
                    return (stored.intern(p), IdHashes.hash(p))
                }
                guard k == before else {
                    throw VerifyFailure(file: file, block: i / manifest.blockRows, reason: "id \(ids.string(i) ?? "") is stored twice")
                }
                let b = IdHashes.bucket(h)
                expected[b].append(key: expected[b].key(h), ordinal: manifest.partitioning.ordinal(t[i]))
            }
        }
        for b in 0..<Manifest.idBucketCount {
            expected[b].sort()
            guard expected[b].keys == (index[b]?.keys ?? []), expected[b].ordinals == (index[b]?.ordinals ?? []) else {
                let f = manifest.idBuckets[b].map { "ids/" + $0 } ?? "ids/"
                throw VerifyFailure(file: f, block: nil, reason: "bucket \(b) does not list the stored events of its ids")
            }
        }
        try verifyHistory(stored)
        try verifyCatalog(histograms, places)
        try verifyTopRows(strongest)
        return (manifest.partitions.count, manifest.rows, blocksRead)
    }

    /// The place index, when the partition has one, is byte for byte the one its stored rows give.
    private func verifyPlaceIndex(_ r: PartitionReader, _ batch: RowBatch) throws {
        let file = "partitions/\(r.entry.file)"
        do {
            guard let stored = try r.placeIndexBytes() else { return }
            let d = try r.directory()
            var codes: [UInt32] = []
            codes.reserveCapacity(batch.count)
            for (k, n) in d.blockSizes.enumerated() { codes.append(contentsOf: try r.placeCodes(block: k, rows: 0..<n, dictionary: false).1) }
            guard PlaceIndex.encode(mags: batch.ints[Column.mag.rawValue], codes: codes, blockRows: d.blockRows,
                                    granules: d.granules) == stored else {
                throw VerifyFailure(file: file, block: nil, reason: "place index does not match the rows")
            }
        } catch let f as VerifyFailure { throw f } catch {
            throw VerifyFailure(file: file, block: nil, reason: "\(error)", underlying: error as? QuakeError)
        }
    }

    /// The unit aggregates, when the partition has them, are byte for byte the ones its stored
    /// rows give.
    private func verifyAggregates(_ r: PartitionReader, _ batch: RowBatch) throws {
        let file = "partitions/\(r.entry.file)"
        do {
            guard let stored = try r.unitAggregateBytes() else { return }
            let d = try r.directory()
            var codes: [[UInt32]] = []
            for c in UnitAggregates.groupColumns {
                var list: [UInt32] = []
                list.reserveCapacity(batch.count)
                for k in d.blockSizes.indices {
                    guard case .category(let b) = try r.decode(c, block: k) else {
                        throw VerifyFailure(file: file, block: k, reason: "column \(c) is not a category")
                    }
                    list.append(contentsOf: b.codes)
                }
                codes.append(list)
            }
            guard UnitAggregates.encode(batch, codes: codes, blockRows: d.blockRows) == stored else {
                throw VerifyFailure(file: file, block: nil, reason: "unit aggregates do not match the rows")
            }
        } catch let f as VerifyFailure { throw f } catch {
            throw VerifyFailure(file: file, block: nil, reason: "\(error)", underlying: error as? QuakeError)
        }
    }

    /// The catalog, when the manifest names one, is byte for byte the one the partitions' rows
    /// give: their magnitude counts, and the localities of their places with magnitude bounds.
    private func verifyCatalog(_ histograms: [Catalog.Histogram?], _ places: [PlaceSummary?]) throws {
        guard let name = manifest.catalog else { return }
        let file = "partitions/" + name
        let hs = histograms.compactMap { $0 }
        guard hs.count == histograms.count,
              let (bytes, checksum) = Catalog.encode(files: manifest.partitions.map(\.file), histograms: hs,
                                                 places: places) else {
            throw VerifyFailure(file: file, block: nil, reason: "names a catalog the partitions cannot have")
        }
        do {
            guard checksum == manifest.catalogChecksum, try FileIO.readFile(path + "/" + file, limit: Catalog.sizeLimit + (1 << 20)) == bytes else {
                throw VerifyFailure(file: file, block: nil, reason: "does not match the partitions' rows")
            }
        } catch let f as VerifyFailure { throw f } catch {
            throw VerifyFailure(file: file, block: nil, reason: "\(error)", underlying: error as? QuakeError)
        }
    }

    /// Every kept transaction decodes, its counts add up, and every id it inserted or
    /// updated is stored.
    private func verifyHistory(_ indexed: SliceInterner) throws {
        for g in manifest.history.generations {
            let file = "history/" + HistoryFile.name(generation: g)
            func fail(_ why: String) -> VerifyFailure { VerifyFailure(file: file, block: nil, reason: why) }
            do {
                let h = try HistoryFile.read(path: HistoryFile.path(store: path, generation: g))
                guard h.generation == g else { throw fail("holds generation \(h.generation)") }
                for i in h.sections.indices {
                    let c = try h.changes(i)
                    for list in [c.inserted, c.updated] {
                        // SAFETY: the list's ends lie in its bytes and $0 < list.count; lookup reads the slice.
                        let missing = list.bytes.withUnsafeBytes { raw in
                            (0..<list.count).first { indexed.lookup(UnsafeRawBufferPointer(rebasing: raw[list.range($0)])) == nil }
                        }
                        if let k = missing { throw fail("event \(list.string(k) ?? "") is not in the store") }
                    }
                }
            } catch let f as VerifyFailure { throw f } catch { throw fail("\(error)") }
        }
    }
}
