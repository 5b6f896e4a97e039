import Foundation

extension PartitionFile {
    /// What a rewrite of a partition's rows keeps of the file it replaces, for the new file's
    /// indexes: the old granule index, place index and unit aggregates (their checksums checked),
    /// and the rows that changed. The granules and scan units those rows fall in are indexed
    /// again, the rest copied; an index whose inputs changed everywhere (a magnitude new to the
    /// partition or gone from it, a place or group column encoded again, so its dictionary codes)
    /// is built whole. The bytes are those of building every index whole.
    package struct PreviousIndexes: Sendable {
        package var granules: GranuleIndex
        package var place: [UInt8]?
        package var aggregates: [UInt8]?
        /// The changed rows, ascending.
        package var rows: [Int]
        /// Whether the place column's chunks are the old file's (so are its locality codes).
        package var placeKept: Bool
        /// Whether every group column's chunks (``UnitAggregates/groupColumns``) are the old file's.
        package var groupsKept: Bool
        /// Indexed columns the batch holds only in the granules of the changed rows (nulls
        /// elsewhere), as ``sparseColumns(changed:granules:rows:place:aggregates:)`` allows.
        package var sparse: Set<Column>

        package init(granules: GranuleIndex, place: [UInt8]?, aggregates: [UInt8]?, rows: [Int], placeKept: Bool,
                     groupsKept: Bool, sparse: Set<Column> = []) {
            self.granules = granules
            self.place = place
            self.aggregates = aggregates
            self.rows = rows
            self.placeKept = placeKept
            self.groupsKept = groupsKept
            self.sparse = sparse
        }

        /// The indexed columns a rewrite that changes only `changed` may hold in the granules of
        /// its changed rows alone: every index then reads them there only. Latitude, longitude and
        /// depth when the unit aggregates are patched (their group columns kept, the old region
        /// sound); the magnitude when the place index is too; never the time, nor any when the
        /// old granule index does not fit (another row count, no histogram).
        package static func sparseColumns(changed: Set<Column>, granules: GranuleIndex, rows: Int, place: [UInt8]?,
                                          aggregates: [UInt8]?) -> Set<Column> {
            guard granules.rows == rows, granules.hasMagHistogram, aggregates != nil,
                  UnitAggregates.groupColumns.allSatisfy({ !changed.contains($0) }) else { return [] }
            var out: Set<Column> = [.latitude, .longitude, .depth]
            if place != nil && !changed.contains(.place) { out.insert(.mag) }
            return out.subtracting(changed)
        }

        /// The granules the changed rows fall in, ascending, of a partition of `count` rows.
        package func granules(rows count: Int) -> [Int] {
            var out: [Int] = []
            for row in rows where row >= 0 && row < count {
                let granule = row / GranuleIndex.granuleRows
                if out.last != granule { out.append(granule) }
            }
            return out
        }
    }

    /// The place index with the entries of the `touched` units encoded again from the new
    /// chunks' locality codes; nil when it must be built whole.
    static func patchedPlaceIndex(_ previous: PreviousIndexes, _ batch: RowBatch, _ chunks: [ChunkInfo],
                                  _ data: [UInt8], units: [(block: Int, granule: Int, rows: Range<Int>)],
                                  touched: [Int], blockRows: Int, granules: GranuleIndex) -> [UInt8]? {
        guard previous.placeKept, let old = previous.place, granules.hasMagHistogram,
              granules.magValues.count < Int(PlaceIndex.noMag), granules.magValues == previous.granules.magValues,
              batch.ints[Column.mag.rawValue].count == batch.count else { return nil }
        var encoder = PlaceIndex.UnitEncoder(values: granules.magValues)
        var replaced: [Int: UnitRegion.Unit] = [:]
        for unit in touched {
            let (block, _, rows) = units[unit]
            guard block < chunks.count, chunks[block].codec == .placeCodes else { return nil }
            let info = chunks[block]
            let local = (rows.lowerBound - block * blockRows)..<(rows.upperBound - block * blockRows)
            // SAFETY: `info` describes a chunk laid out in `data`, so its byte range lies inside `data`,
            // whose storage `b` is for the closure's span.
            let codes = data.withUnsafeBytes { (b) -> [UInt32]? in
                assert(info.offset >= 0 && info.offset + info.length <= b.count)
                let payload = UnsafeRawBufferPointer(rebasing: b[info.offset..<(info.offset + info.length)])
                return try? PlaceCodesCodec.parse(payload, count: info.rows, dictionary: false).codes(local)
            }
            guard let codes, codes.count == rows.count else { return nil }
            var body = ByteWriter()
            let count = encoder.encode(rows, mags: batch.ints[Column.mag.rawValue], codes: codes,
                                       codesStart: rows.lowerBound, into: &body)
            replaced[unit] = UnitRegion.Unit(bytes: body.bytes, counts: [count])
        }
        return UnitRegion.splice(old, headLength: 4, units: units.count, lists: 1, entrySize: 8, replaced: replaced)
    }

    /// The unit aggregates with the entries of the `touched` units encoded again from the new
    /// chunks' group codes; nil when they must be built whole.
    static func patchedAggregates(_ previous: PreviousIndexes, _ batch: RowBatch, _ chunks: [[ChunkInfo]],
                                  _ data: [UInt8], units: [(block: Int, granule: Int, rows: Range<Int>)],
                                  touched: [Int], blockRows: Int) -> [UInt8]? {
        guard previous.groupsKept, let old = previous.aggregates else { return nil }
        let values = UnitAggregates.metricColumns.map { batch.ints[$0.rawValue] }
        guard values.allSatisfy({ $0.count == batch.count }) else { return nil }
        var encoder = UnitAggregates.UnitEncoder()
        var replaced: [Int: UnitRegion.Unit] = [:]
        for unit in touched {
            let (block, _, rows) = units[unit]
            let local = (rows.lowerBound - block * blockRows)..<(rows.upperBound - block * blockRows)
            var codes: [[UInt32]] = []
            for column in UnitAggregates.groupColumns {
                guard block < chunks[column.rawValue].count, chunks[column.rawValue][block].codec == .dictionary else {
                    return nil
                }
                let info = chunks[column.rawValue][block]
                // SAFETY: as in patchedPlaceIndex: the chunk's range lies inside `data` (storage `b`).
                let vector = data.withUnsafeBytes { (b) -> ColumnVector? in
                    assert(info.offset >= 0 && info.offset + info.length <= b.count)
                    let payload = UnsafeRawBufferPointer(rebasing: b[info.offset..<(info.offset + info.length)])
                    return try? DictionaryCodec.decode(payload, count: info.rows, rows: local, as: .stored)
                }
                guard case .category(let category)? = vector, category.codes.count == rows.count else { return nil }
                codes.append(category.codes)
            }
            var body = ByteWriter()
            let counts = encoder.encode(rows, values: values, codes: codes, codesStart: rows.lowerBound, into: &body)
            replaced[unit] = UnitRegion.Unit(bytes: body.bytes, counts: counts)
        }
        let headLength = 8 + UnitAggregates.groupColumns.count + UnitAggregates.metricColumns.count
        return UnitRegion.splice(old, headLength: headLength, units: units.count, lists: UnitAggregates.lists,
                                 entrySize: UnitAggregates.entrySize, replaced: replaced)
    }
}
