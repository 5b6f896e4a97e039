import QuakeFormat
/// Builds the final page: only the referenced rows, only the requested columns, decoding only
/// the granules (4,096 rows, one zstd frame of text) the rows fall in, each once.
package struct Materializer {
    package let executor: QueryExecutor

    /// The rows `refs` point at, in the order of `refs`. They are read in storage order, one
    /// granule at a time per thread, so memory holds the output and a decoded granule per core,
    /// never a cache of every granule a large result touches; then put in result order. A page
    /// within a few granules (``resultOrderWindows``) is written in result order straight away.
    package func rows(_ refs: [RowRef], columns: ColumnSet) throws -> RowBatch {
        let order = IdFetcher.storageOrder(refs)
        // the refs in each granule, to be decoded from the first to the last of them only
        let windows = try executor.granuleRuns(refs, order)
        func data(_ g: Int) -> BlockData {
            let window = windows[g]
            let first = refs[order[window.at.lowerBound]]
            let blockData = BlockData(reader: executor.reader(first.partition), block: window.block,
                                      window: window.rows, firstRow: first.row)
            let key = IdWindows.Key(partition: first.partition, block: window.block, rows: window.rows)
            if columns.contains(.id), let ids = executor.idWindows.ids(key, rows: window.rows) {
                blockData.seed(.id, .text(ids))
            }
            return blockData
        }
        let columns = Column.allCases.filter(columns.contains)
        if windows.count <= Materializer.resultOrderWindows {
            // few granules (a page of a day): all of them decoded at once, rows written in result order
            let decoded = windows.indices.map(data)
            var group = [Int](repeating: 0, count: refs.count)
            for (g, window) in windows.enumerated() {
                for k in order[window.at] { group[k] = g }
            }
            return try inResultOrder(refs, decoded, group, columns)
        }
        // many: each thread takes a run of granules and decodes one at a time, writing rows in
        // storage order; the runs are joined in order, then put in result order
        let lanes = min(workerCount, windows.count)
        let per = (windows.count + lanes - 1) / lanes
        let parts = try parallelMap(Array(0..<lanes)) { lane -> RowBatch in
            var part = RowBatch()
            var scratch: [UInt8] = []
            for g in (lane * per)..<min(windows.count, (lane + 1) * per) {
                try executor.cancel?.check()
                let window = data(g)
                for k in order[windows[g].at] { try write(refs[k], window, columns, &part, &scratch) }
            }
            part.padRows()
            return part
        }
        var out = RowBatch()
        for part in parts { out.append(contentsOf: part) }
        if order.elementsEqual(refs.indices) { return out }
        var position = [Int](repeating: 0, count: refs.count)
        for (row, k) in order.enumerated() { position[k] = row }
        return out.gather(position)
    }

    /// The rows of `refs` in their order, row `k` read from window `decoded[group[k]]`, written a
    /// column at a time: each window's decoded column is fetched once per column, not once per
    /// row and column.
    private func inResultOrder(_ refs: [RowRef], _ decoded: [BlockData], _ group: [Int],
                               _ columns: [Column]) throws -> RowBatch {
        let rowCount = refs.count
        var at = [Int](repeating: 0, count: rowCount)
        for k in 0..<rowCount {
            let data = decoded[group[k]]
            let row = refs[k].row - data.firstRow
            guard row >= 0, row < data.rows else {
                throw QuakeError.corrupt(data.reader.path, "row \(refs[k].row) outside its window")
            }
            at[k] = row
        }
        var out = RowBatch()
        for column in columns {
            switch column.kind {
            case .timestamp, .decimal:
                out.ints[column.rawValue] = try Self.intColumn(column, decoded, group, at)
            case .category:
                out.text[column.rawValue] = try Self.categoryColumn(column, decoded, group, at)
            case .text:
                out.text[column.rawValue] = try Self.textColumn(column, decoded, group, at)
            case .place:
                out.text[column.rawValue] = try Self.placeColumn(column, decoded, group, at)
            }
        }
        out.count = rowCount
        out.present = [UInt64](repeating: Column.allMask, count: rowCount)
        out.seq = [Int64](repeating: 0, count: rowCount)
        out.padRows()
        return out
    }

    /// Column `column` of the rows in result order: row `k` is row `at[k]` of window `decoded[group[k]]`.
    private static func intColumn(_ column: Column, _ decoded: [BlockData], _ group: [Int],
                                  _ at: [Int]) throws -> [Int64] {
        let windowValues = try decoded.map { data in
            let values = try data.ints(column)
            guard values.count == data.rows else { throw Materializer.short(data, column) }
            return values
        }
        var out = [Int64](repeating: RowBatch.null, count: at.count)
        for k in 0..<at.count { out[k] = windowValues[group[k]][at[k]] }
        return out
    }

    /// A category column of the rows in result order, as `intColumn` reads them.
    private static func categoryColumn(_ column: Column, _ decoded: [BlockData], _ group: [Int],
                                       _ at: [Int]) throws -> ByteArena {
        let windowColumns = try decoded.map { data in
            let categories = try data.category(column)
            guard categories.codes.count == data.rows else { throw Materializer.short(data, column) }
            return categories
        }
        var arena = ByteArena()
        arena.ends.reserveCapacity(at.count)
        for k in 0..<at.count {
            let code = Int(windowColumns[group[k]].codes[at[k]])
            guard code <= windowColumns[group[k]].dictionary.count else {
                throw QuakeError.corrupt(decoded[group[k]].reader.path, "column \(column) code \(code)")
            }
            if code > 0 {
                arena.append(from: windowColumns[group[k]].dictionary, row: code - 1)
            } else {
                arena.appendNull()
            }
        }
        return arena
    }

    /// A text column of the rows in result order, as `intColumn` reads them.
    private static func textColumn(_ column: Column, _ decoded: [BlockData], _ group: [Int],
                                   _ at: [Int]) throws -> ByteArena {
        let windowTexts = try decoded.map { data in
            let texts = try data.text(column)
            guard texts.count == data.rows else { throw Materializer.short(data, column) }
            return texts
        }
        var arena = ByteArena()
        arena.ends.reserveCapacity(at.count)
        for k in 0..<at.count { arena.append(from: windowTexts[group[k]], row: at[k]) }
        return arena
    }

    /// The place column of the rows in result order, as `intColumn` reads them.
    private static func placeColumn(_ column: Column, _ decoded: [BlockData], _ group: [Int],
                                    _ at: [Int]) throws -> ByteArena {
        let windowPlaces = try decoded.map { data in
            let places = try data.place()
            guard places.locality.count == data.rows else { throw Materializer.short(data, .place) }
            return places
        }
        var arena = ByteArena()
        arena.ends.reserveCapacity(at.count)
        for k in 0..<at.count {
            windowPlaces[group[k]].write(at[k], into: &arena.bytes)
            arena.ends.append(arena.bytes.count)
        }
        return arena
    }

    /// The error for a window whose column `c` decodes to another number of rows than it holds.
    private static func short(_ d: BlockData, _ c: Column) -> QuakeError {
        QuakeError.corrupt(d.reader.path, "column \(c) block \(d.block) does not decode to its \(d.rows) rows")
    }

    /// Up to this many granules, a page is written straight in result order.
    static let resultOrderWindows = 8

    /// Appends the row `ref` points at, from `data` (the window holding it): only `columns` are
    /// set, the rest are left for ``RowBatch/padRows()``.
    private func write(_ ref: RowRef, _ data: BlockData, _ columns: [Column], _ out: inout RowBatch,
                       _ scratch: inout [UInt8]) throws {
        let row = ref.row - data.firstRow
        out.beginRow(only: columns)
        for c in columns {
            switch c.kind {
            case .timestamp, .decimal:
                out.setInt(c, try data.ints(c)[row])
            case .category:
                let categories = try data.category(c)
                let code = Int(categories.codes[row])
                if code > 0 {
                    let range = categories.dictionary.range(code - 1)
                    // SAFETY: decoding checked each code <= dictionary.count, so `range` lies in the dictionary's
                    // bytes; setText copies the slice and `$0` does not escape the closure.
                    categories.dictionary.bytes.withUnsafeBytes {
                        out.setText(c, UnsafeRawBufferPointer(rebasing: $0[range]))
                    }
                }
            case .text:
                let texts = try data.text(c)
                if !texts.isNull(row) {
                    // SAFETY: `row` is a window row and vector() checked `texts` holds the window's rows, so the range
                    // lies in its bytes; setText copies the slice and `$0` does not escape the closure.
                    texts.bytes.withUnsafeBytes {
                        out.setText(c, UnsafeRawBufferPointer(rebasing: $0[texts.range(row)]))
                    }
                }
            case .place:
                scratch.removeAll(keepingCapacity: true)
                try data.place().write(row, into: &scratch)
                if !scratch.isEmpty { out.setText(c, scratch) }
            }
        }
        out.endRow(present: Column.allMask, seq: 0)
    }
}

/// The answer to a query: the page's rows (only the requested columns filled), a cursor
/// after its last row, and what the engine did.
package struct QueryResult: Sendable {
    package var batch: RowBatch
    package let columns: [Column]
    package let cursor: Cursor?
    package let stats: QueryStats

    package var count: Int { batch.count }

    /// The rows as ``Quake`` values (fields not fetched are nil).
    package var quakes: [Quake] {
        let want = ColumnSet(columns)
        return (0..<batch.count).map { Quake(batch: batch, row: $0, columns: want) }
    }

    /// Event ids in result order.
    package var ids: [String] { (0..<batch.count).map { batch.text[Column.id.rawValue].string($0) ?? "" } }
}

extension Store {
    /// Counts matching rows without materializing any.
    /// With `cap`, gives `min(count, cap)` and stops scanning once `cap` rows are found.
    package func count(_ filter: Filter, snapshot: Manifest? = nil, cap: Int = .max) throws -> Int {
        try QueryExecutor(store: self, snapshot: snapshot).count(filter, cap: cap).0
    }

    /// Count plus what the engine did.
    package func explainCount(_ filter: Filter) throws -> (Int, QueryStats) {
        try QueryExecutor(store: self).count(filter)
    }

    /// Runs a query; `columns` limits what is materialized (id, time and the sort keys are
    /// always read).
    package func query(_ q: QuerySpec, columns: [Column]? = nil) throws -> QueryResult {
        let ex = QueryExecutor(store: self)
        let (refs, stats) = try ex.run(q)
        let shown = columns ?? Column.allCases
        var need = ColumnSet(shown).union([.id, .time]).union(q.sort.map(\.column))
        if columns == nil { need = .all }
        // a title the store does not keep is made from the magnitude, type and place
        if need.contains(.title) { need.formUnion(RowBatch.titleSources) }
        var batch = try Materializer(executor: ex).rows(refs, columns: need)
        if need.contains(.title) { batch.makeTitles() }
        let cursor = batch.count > 0 ? Store.cursor(batch, row: batch.count - 1, sort: q.sort) : nil
        return QueryResult(batch: batch, columns: shown, cursor: cursor, stats: stats)
    }

    /// The resume cursor after `row` of `batch` under `sort`.
    package static func cursor(_ batch: RowBatch, row last: Int, sort: [SortKey]) -> Cursor {
        let values = sort.map { key -> SortValue in
            switch key.column.kind {
            case .timestamp:
                let time = batch.ints[key.column.rawValue][last]
                return time == RowBatch.null ? .null : .number(Double(time))
            case .decimal:
                let number = ScaledDecimal.double(batch.ints[key.column.rawValue][last])
                return number.isNaN ? .null : .number(number)
            default:
                return batch.text[key.column.rawValue].string(last).map { .text($0) } ?? .null
            }
        }
        return Cursor(sort: sort, values: values, id: batch.text[Column.id.rawValue].string(last) ?? "")
    }
}
