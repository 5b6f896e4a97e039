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
            let w = windows[g], first = refs[order[w.at.lowerBound]]
            let d = BlockData(reader: executor.reader(first.partition), block: w.block, window: w.rows,
                              firstRow: first.row)
            if columns.contains(.id),
               let ids = executor.idWindows.ids(.init(partition: first.partition, block: w.block, rows: w.rows),
                                                rows: w.rows) {
                d.seed(.id, .text(ids))
            }
            return d
        }
        let columns = Column.allCases.filter(columns.contains)
        if windows.count <= Materializer.resultOrderWindows {
            // few granules (a page of a day): all of them decoded at once, rows written in result order
            let decoded = windows.indices.map(data)
            var group = [Int](repeating: 0, count: refs.count)
            for (g, w) in windows.enumerated() { for k in order[w.at] { group[k] = g } }
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
                let d = data(g)
                for k in order[windows[g].at] { try write(refs[k], d, columns, &part, &scratch) }
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
        let n = refs.count
        var at = [Int](repeating: 0, count: n)
        for k in 0..<n {
            let d = decoded[group[k]], i = refs[k].row - d.firstRow
            guard i >= 0, i < d.rows else {
                throw QuakeError.corrupt(d.reader.path, "row \(refs[k].row) outside its window")
            }
            at[k] = i
        }
        var out = RowBatch()
        for c in columns {
            switch c.kind {
            case .timestamp, .decimal:
                let vs = try decoded.map { d in
                    let v = try d.ints(c)
                    guard v.count == d.rows else { throw Materializer.short(d, c) }
                    return v
                }
                var col = [Int64](repeating: RowBatch.null, count: n)
                for k in 0..<n { col[k] = vs[group[k]][at[k]] }
                out.ints[c.rawValue] = col
            case .category:
                let bs = try decoded.map { d in
                    let b = try d.category(c)
                    guard b.codes.count == d.rows else { throw Materializer.short(d, c) }
                    return b
                }
                var a = ByteArena()
                a.ends.reserveCapacity(n)
                for k in 0..<n {
                    let code = Int(bs[group[k]].codes[at[k]])
                    guard code <= bs[group[k]].dictionary.count else {
                        throw QuakeError.corrupt(decoded[group[k]].reader.path, "column \(c) code \(code)")
                    }
                    if code > 0 { a.append(from: bs[group[k]].dictionary, row: code - 1) } else { a.appendNull() }
                }
                out.text[c.rawValue] = a
            case .text:
                let ts = try decoded.map { d in
                    let t = try d.text(c)
                    guard t.count == d.rows else { throw Materializer.short(d, c) }
                    return t
                }
                var a = ByteArena()
                a.ends.reserveCapacity(n)
                for k in 0..<n { a.append(from: ts[group[k]], row: at[k]) }
                out.text[c.rawValue] = a
            case .place:
                let ps = try decoded.map { d in
                    let p = try d.place()
                    guard p.locality.count == d.rows else { throw Materializer.short(d, .place) }
                    return p
                }
                var a = ByteArena()
                a.ends.reserveCapacity(n)
                for k in 0..<n {
                    ps[group[k]].write(at[k], into: &a.bytes)
                    a.ends.append(a.bytes.count)
                }
                out.text[c.rawValue] = a
            }
        }
        out.count = n
        out.present = [UInt64](repeating: Column.allMask, count: n)
        out.seq = [Int64](repeating: 0, count: n)
        out.padRows()
        return out
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
        let i = ref.row - data.firstRow
        out.beginRow(only: columns)
        for c in columns {
            switch c.kind {
            case .timestamp, .decimal:
                out.setInt(c, try data.ints(c)[i])
            case .category:
                let b = try data.category(c)
                let code = Int(b.codes[i])
                if code > 0 {
                    let r = b.dictionary.range(code - 1)
                    // SAFETY: decoding checked each code <= dictionary.count, so r lies in the dictionary's bytes;
                    // setText copies the slice and `$0` does not escape the closure.
                    b.dictionary.bytes.withUnsafeBytes { out.setText(c, UnsafeRawBufferPointer(rebasing: $0[r])) }
                }
            case .text:
                let t = try data.text(c)
                if !t.isNull(i) {
                    // SAFETY: i is a window row and vector() checked `t` holds the window's rows, so the range lies
                    // in its bytes; setText copies the slice and `$0` does not escape the closure.
                    t.bytes.withUnsafeBytes { out.setText(c, UnsafeRawBufferPointer(rebasing: $0[t.range(i)])) }
                }
            case .place:
                scratch.removeAll(keepingCapacity: true)
                try data.place().write(i, into: &scratch)
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
    package func explainCount(_ filter: Filter) throws -> (Int, QueryStats) { try QueryExecutor(store: self).count(filter) }

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
                let v = batch.ints[key.column.rawValue][last]
                return v == RowBatch.null ? .null : .number(Double(v))
            case .decimal:
                let v = ScaledDecimal.double(batch.ints[key.column.rawValue][last])
                return v.isNaN ? .null : .number(v)
            default:
                return batch.text[key.column.rawValue].string(last).map { .text($0) } ?? .null
            }
        }
        return Cursor(sort: sort, values: values, id: batch.text[Column.id.rawValue].string(last) ?? "")
    }
}
