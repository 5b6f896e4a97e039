import QuakeFormat
import QuakeSupport
import Synchronization

/// Updates that leave every event where it stands: a partition rewritten from its old file,
/// re-encoding only the columns that changed.
extension MergePass {
    /// Most incoming rows a partition takes in place; a larger change is merged whole.
    static let inPlaceRowsLimit = 16_384

    /// Merges partition `ordinal` by rewriting only what changed, when every incoming event is
    /// stored in it and its folded version keeps its place in (time, id) order.
    ///
    /// The stored versions of those events are read alone (a few frames each) and folded with the
    /// incoming ones as the whole merge folds them. The new file is then written from the old
    /// one: every column that no fold changed is copied chunk by chunk, the others are decoded,
    /// patched and encoded, and the indexes are built from the patched numbers. The bytes are
    /// those the whole merge would write. Nil when the change is not such an update (an insert,
    /// a move out, a new position in time order, a file of an older writer, no sound magnitude
    /// projection to take the partition's strongest rows from): the whole merge then runs.
    /// - Complexity: O(rows of the partition) for its ids and the numbers the indexes need, plus
    ///   O(incoming rows) frames; no text column is decoded unless it changed.
    func mergeInPlace(_ ordinal: Int, entry: PartitionEntry) throws -> PartitionResult? {
        guard let spill = spills.partitions[ordinal] else { return nil }
        var incoming = RowBatch()
        try spill.forEach { payload in incoming.append(contentsOf: try RowBatch(serialized: payload)) }
        guard incoming.count > 0, incoming.count <= Self.inPlaceRowsLimit else { return nil }
        let reader = PartitionReader(storePath: storePath, entry: entry)
        let directory = try reader.directory()
        guard directory.blockRows == old.blockRows, try reader.isCurrentFormat() else { return nil }
        var times = try reader.ints(.time)
        guard times.count == entry.rows else {
            throw QuakeError.corrupt(reader.path, "time column holds \(times.count) rows")
        }
        // the ids of the rows at the incoming versions' times (a revision mostly keeps its time), else all of
        // them: also for more events than a quarter of the id frames, each of which a lookup would decode
        var storedIds: ByteArena?
        let located: [Int]
        if incoming.count <= Self.locateAtTimesLimit(rows: entry.rows),
           let atTimes = try Self.locate(incoming, at: times, reader: reader, blockRows: directory.blockRows) {
            located = atTimes
        } else {
            let all = try reader.arena(.id)
            guard let found = Self.locate(incoming, in: all) else { return nil }
            storedIds = all
            located = found
        }
        let positions = Array(Set(located)).sorted()
        var rows = try reader.rows(at: positions)
        let storedCount = rows.count
        rows.append(contentsOf: incoming)
        var result = PartitionResult()
        var grouped = groupVersions(rows, storedRows: storedCount, movedOut: nil, changed: &result.changed)
        let (_, folded) = foldVersions(rows, storedRows: storedCount, starts: grouped.starts,
                                       members: &grouped.members, into: &result)
        guard result.changed else { return result }
        let stored = rows.gather(Array(0..<storedCount))
        let patches = Self.patches(folded, stored: stored, positions: positions)
        for patch in patches {
            times[patch.row] = folded.ints[Column.time.rawValue][patch.folded]
        }
        let ids = try storedIds ?? Self.neighbourIds(patches, rows: entry.rows, reader: reader,
                                                     blockRows: directory.blockRows)
        guard Self.keepsOrder(patches, times: times, ids: ids) else { return nil }
        var piece: RowBatch?
        if topRows != nil {
            guard let projection = oldProjection.times(old, storePath: storePath),
                  let rows = try? projection.reader.rows(at: projection.rows(ordinal, partitioning)) else { return nil }
            piece = Self.strongest(rows, folded: folded)
        }
        let changed = Self.changedColumns(patches, folded: folded, stored: stored)
        // the indexes are patched in the granules of the patched rows: the unchanged numbers
        // they read are decoded there only, where every index can be patched
        let regions = try reader.checkedIndexRegions()
        var previous = PartitionFile.PreviousIndexes(
            granules: try reader.granules(), place: regions.place, aggregates: regions.aggregates,
            rows: patches.map(\.row), placeKept: !changed.contains(.place),
            groupsKept: UnitAggregates.groupColumns.allSatisfy { !changed.contains($0) })
        previous.sparse = PartitionFile.PreviousIndexes.sparseColumns(
            changed: changed, granules: previous.granules, rows: entry.rows, place: regions.place,
            aggregates: regions.aggregates)
        let granules = previous.granules(rows: entry.rows)
        var batch = RowBatch()
        batch.count = entry.rows
        var reused: [Int: PartitionFile.ColumnImage] = [:]
        for column in Column.allCases {
            if changed.contains(column) {
                try patchColumn(column, &batch, reader: reader, patches: patches, folded: folded, times: times)
            } else {
                reused[column.rawValue] = try reader.columnImage(column)
                if column == .time {
                    batch.ints[column.rawValue] = times
                } else if previous.sparse.contains(column) {
                    batch.ints[column.rawValue] = try reader.ints(column, granules: granules)
                } else if PartitionFile.indexedColumns.contains(column) {
                    batch.ints[column.rawValue] = try reader.ints(column)
                }
            }
        }
        try patchProvenance(&batch, reader: reader, patches: patches, folded: folded)
        result.entry = try writeInPlace(batch, reused: reused, previous: previous, partition: ordinal, entry: entry,
                                        deleted: Self.deletedChange(patches, folded: folded, stored: stored))
        result.inPlace = true
        if let piece, let file = result.entry?.file { topRows?.offer(piece, file: file) }
        return result
    }

    /// A folded row and the partition row it replaces.
    struct Patch {
        var row: Int
        var folded: Int
        /// The replaced row in the stored rows read.
        var stored: Int
    }

    /// Most incoming rows a partition of `rows` rows looks up at their times (each decodes an id
    /// frame of ``FramedCodec/textFrameRows`` rows): a quarter of its frames, at least one.
    static func locateAtTimesLimit(rows: Int) -> Int {
        Swift.max(1, rows / FramedCodec.textFrameRows / 4)
    }

    /// Per incoming row, the partition row holding its event, found among the rows stored at the
    /// incoming version's time (`times`, the partition's, ascending): the id frames of those rows
    /// only are decoded. Nil when some event is not stored at its incoming time (it moved, or is
    /// not in the partition): the caller then reads every id.
    static func locate(_ incoming: RowBatch, at times: [Int64], reader: PartitionReader,
                       blockRows: Int) throws -> [Int]? {
        let incomingTimes = incoming.ints[Column.time.rawValue]
        let incomingIds = incoming.text[Column.id.rawValue]
        var out: [Int] = []
        out.reserveCapacity(incoming.count)
        for row in 0..<incoming.count {
            let time = incomingTimes[row]
            // the first stored row at `time`, by bisection
            var low = 0
            var high = times.count
            while low < high {
                let middle = (low + high) / 2
                if times[middle] < time { low = middle + 1 } else { high = middle }
            }
            var found: Int?
            var at = low
            while found == nil, at < times.count, times[at] == time {
                let block = at / blockRows
                let end = Swift.min(times.count, (block + 1) * blockRows)
                var last = at
                while last < end, times[last] == time { last += 1 }
                let within = (at - block * blockRows)..<(last - block * blockRows)
                guard case .text(let ids) = try reader.decode(.id, block: block, rows: within),
                      ids.count == last - at else {
                    throw QuakeError.corrupt(reader.path, "column id block \(block) does not decode its rows")
                }
                for k in 0..<ids.count where ids.equal(k, incomingIds, row) { found = at + k }
                at = last
            }
            guard let found else { return nil }
            out.append(found)
        }
        return out
    }

    /// The ids of the rows beside each patched row (and its own), in an arena of the partition's
    /// `rows` rows where the others are empty: all ``keepsOrder(_:times:ids:)`` compares.
    static func neighbourIds(_ patches: [Patch], rows: Int, reader: PartitionReader,
                             blockRows: Int) throws -> ByteArena {
        var wanted = Set<Int>()
        for patch in patches {
            for row in (patch.row - 1)...(patch.row + 1) where row >= 0 && row < rows { wanted.insert(row) }
        }
        let wantedRows = wanted.sorted()
        var arena = ByteArena()
        arena.ends.reserveCapacity(rows)
        // the rows between wanted ones stay empty: their ends repeat, in runs (a lookup per row
        // cost a ten-event load 6 %)
        for row in wantedRows {
            let block = row / blockRows
            let within = row - block * blockRows
            guard case .text(let ids) = try reader.decode(.id, block: block, rows: within..<(within + 1)),
                  ids.count == 1 else {
                throw QuakeError.corrupt(reader.path, "column id block \(block) does not decode row \(within)")
            }
            arena.ends.append(contentsOf: repeatElement(arena.bytes.count, count: row - arena.ends.count))
            arena.bytes.append(contentsOf: ids.bytes[ids.range(0)])
            arena.ends.append(arena.bytes.count)
        }
        arena.ends.append(contentsOf: repeatElement(arena.bytes.count, count: rows - arena.ends.count))
        return arena
    }

    /// Per incoming row, the partition row holding its event; nil when some event is not stored
    /// in the partition.
    static func locate(_ incoming: RowBatch, in storedIds: ByteArena) -> [Int]? {
        var interner = SliceInterner(capacity: incoming.count)
        let ids = incoming.text[Column.id.rawValue]
        let codes = (0..<incoming.count).map { interner.intern(ids, row: $0) }
        var rowOfEvent = [Int](repeating: -1, count: interner.count)
        for row in 0..<storedIds.count {
            if let code = interner.lookup(storedIds, row: row) { rowOfEvent[code] = row }
        }
        guard !rowOfEvent.contains(-1) else { return nil }
        return codes.map { rowOfEvent[$0] }
    }

    /// Each folded row with the partition row it replaces, ascending by row. `stored` holds the
    /// partition rows `positions`, in order.
    static func patches(_ folded: RowBatch, stored: RowBatch, positions: [Int]) -> [Patch] {
        var interner = SliceInterner(capacity: stored.count)
        let storedIds = stored.text[Column.id.rawValue]
        for row in 0..<stored.count { _ = interner.intern(storedIds, row: row) }
        var out: [Patch] = []
        let ids = folded.text[Column.id.rawValue]
        for row in 0..<folded.count {
            if let storedRow = interner.lookup(ids, row: row) {
                out.append(Patch(row: positions[storedRow], folded: row, stored: storedRow))
            }
        }
        return out.sorted { $0.row < $1.row }
    }

    /// Whether the patched rows keep the partition in (time, id) order: each patched row's
    /// time against its neighbours' (their ids are the events', which stay).
    static func keepsOrder(_ patches: [Patch], times: [Int64], ids: ByteArena) -> Bool {
        func before(_ a: Int, _ b: Int) -> Bool {
            times[a] != times[b] ? times[a] < times[b] : ids.compare(a, ids, b) < 0
        }
        for patch in patches {
            if patch.row > 0 && !before(patch.row - 1, patch.row) { return false }
            if patch.row + 1 < times.count && !before(patch.row, patch.row + 1) { return false }
        }
        return true
    }

    /// The columns some folded row holds a value of other than its stored row's.
    static func changedColumns(_ patches: [Patch], folded: RowBatch, stored: RowBatch) -> Set<Column> {
        var changed: Set<Column> = []
        // column by column, up to the first patch that differs (a set lookup per row and column cost
        // a thousand-event load 2 ms)
        for column in Column.allCases {
            let index = column.rawValue
            if RowBatch.isInt(column) {
                let foldedValues = folded.ints[index]
                let storedValues = stored.ints[index]
                if patches.contains(where: { foldedValues[$0.folded] != storedValues[$0.stored] }) {
                    changed.insert(column)
                }
            } else {
                let foldedValues = folded.text[index]
                let storedValues = stored.text[index]
                if patches.contains(where: { !foldedValues.equal($0.folded, storedValues, $0.stored) }) {
                    changed.insert(column)
                }
            }
        }
        return changed
    }

    /// Column `c` of every partition row, with the patched rows' folded values, into `batch`.
    private func patchColumn(_ c: Column, _ batch: inout RowBatch, reader: PartitionReader, patches: [Patch],
                             folded: RowBatch, times: [Int64]) throws {
        if c == .time {
            batch.ints[c.rawValue] = times
        } else if RowBatch.isInt(c) {
            var values = try reader.ints(c)
            for patch in patches {
                values[patch.row] = folded.ints[c.rawValue][patch.folded]
            }
            batch.ints[c.rawValue] = values
        } else {
            let arena = folded.text[c.rawValue]
            batch.text[c.rawValue] = try reader.arena(c).replacing(patches.map { ($0.row, arena, $0.folded) })
        }
    }

    /// Every row's carried fields and field origins, the patched rows' from their folds.
    private func patchProvenance(_ batch: inout RowBatch, reader: PartitionReader, patches: [Patch],
                                 folded: RowBatch) throws {
        if let stored = try reader.provenance() {
            batch.present = stored.present
            batch.origins = stored.origins
        } else {
            batch.present = Array(repeating: Column.allMask, count: batch.count)
        }
        for patch in patches {
            batch.present[patch.row] = folded.present[patch.folded]
            batch.origins[patch.row] = folded.origins[patch.folded]
        }
    }

    /// The change in the partition's count of `deleted` rows the patches make.
    static func deletedChange(_ patches: [Patch], folded: RowBatch, stored: RowBatch) -> Int {
        func isDeleted(_ batch: RowBatch, _ row: Int) -> Bool {
            let status = batch.text[Column.status.rawValue]
            return Array(status.bytes[status.range(row)]) == ByteArena.deletedStatus
        }
        return patches.reduce(0) { total, patch in
            total + (isDeleted(folded, patch.folded) ? 1 : 0) - (isDeleted(stored, patch.stored) ? 1 : 0)
        }
    }

    /// The rows of a partition the projection can need after the update, in (time, id) order:
    /// the old projection's rows of the partition, `projection` (every row at or above its
    /// threshold, which the collector's floor never goes under), the updated events' replaced
    /// by `folded`.
    static func strongest(_ projection: RowBatch, folded: RowBatch) -> RowBatch {
        var replaced = SliceInterner(capacity: folded.count)
        let foldedIds = folded.text[Column.id.rawValue]
        for row in 0..<folded.count { _ = replaced.intern(foldedIds, row: row) }
        let ids = projection.text[Column.id.rawValue]
        let kept = (0..<projection.count).filter { replaced.lookup(ids, row: $0) == nil }
        var rows = projection.gather(kept)
        rows.append(contentsOf: folded)
        return rows.gather(rows.timeIdOrder())
    }

    /// Writes the patched partition, its unchanged columns copied from the old file.
    private func writeInPlace(_ batch: RowBatch, reused: [Int: PartitionFile.ColumnImage],
                              previous: PartitionFile.PreviousIndexes, partition ordinal: Int,
                              entry: PartitionEntry, deleted: Int) throws -> PartitionEntry {
        let key = partitioning.key(ordinal: ordinal)
        let file = "\(key).g\(generation).\(PartitionFile.fileExtension)"
        let encoded = PartitionFile.encode(batch, blockRows: old.blockRows, reused: reused, previous: previous)
        try FileIO.writeFile(storePath + "/partitions/" + file, encoded.bytes)
        let times = batch.ints[Column.time.rawValue]
        return PartitionEntry(key: key, file: file, rows: batch.count, minTime: times.first ?? 0,
                              maxTime: times.last ?? 0, bytes: encoded.bytes.count, deleted: entry.deleted + deleted)
    }
}

/// The old magnitude projection's times, read once by the first partition updated in place that
/// needs them, with its reader; none when the store has no sound projection (one built from
/// other partitions) or it cannot be read.
final class OldProjection: Sendable {
    struct Times: Sendable {
        let reader: PartitionReader
        let times: [Int64]

        /// The projection's rows whose times fall in partition `ordinal`, ascending.
        /// - Complexity: O(log rows + rows found) for a projection in time order, as it is
        ///   written; O(rows) otherwise.
        func rows(_ ordinal: Int, _ partitioning: Partitioning) -> [Int] {
            // the rows are in (time, id) order, so the partition's rows are one run, found by
            // bisection; rows out of that order (a damaged file) are filtered one by one
            var low = 0
            var high = times.count
            while low < high {
                let middle = (low + high) / 2
                if partitioning.ordinal(times[middle]) < ordinal { low = middle + 1 } else { high = middle }
            }
            var out: [Int] = []
            var row = low
            while row < times.count, partitioning.ordinal(times[row]) == ordinal {
                out.append(row)
                row += 1
            }
            let ordered = zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }
            return ordered ? out : times.indices.filter { partitioning.ordinal(times[$0]) == ordinal }
        }
    }
    private let state = Mutex<Times??>(nil)

    func times(_ old: Manifest, storePath: String) -> Times? {
        if let known = state.withLock({ $0 }) { return known }
        var read: Times?
        if let top = old.top, top.partitionsHash == TopRows.hash(files: old.partitions.map(\.file)) {
            let reader = PartitionReader(storePath: storePath, entry: top.entry)
            // a damaged projection is left to the whole merge and the commit, which rebuild or drop it
            if let times = try? reader.ints(.time) { read = Times(reader: reader, times: times) }
        }
        state.withLock { $0 = .some(read) }
        return read
    }
}
