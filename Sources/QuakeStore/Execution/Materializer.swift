/// Builds the final page: only the referenced rows, only the requested columns, decoding only
/// the granules (4,096 rows, one zstd frame of text) the rows fall in, each once.
struct Materializer {
    let executor: QueryExecutor

    func rows(_ refs: [RowRef], columns: Set<Column>) throws -> RowBatch {
        var out = RowBatch()
        var cache: [Int64: BlockData] = [:]
        var scratch: [UInt8] = []
        for ref in refs {
            let w = try executor.granuleWindow(ref)
            let key = Int64(ref.partition) << 32 | Int64(w.blockStart + w.rows.lowerBound)
            let data: BlockData
            if let d = cache[key] { data = d } else {
                data = BlockData(reader: executor.reader(ref.partition), block: w.block, window: w.rows,
                                 firstRow: w.blockStart + w.rows.lowerBound)
                cache[key] = data
            }
            let i = ref.row - data.firstRow
            out.beginRow()
            for c in columns {
                switch c.kind {
                case .timestamp, .decimal:
                    out.setInt(c, try data.ints(c)[i])
                case .category:
                    let b = try data.category(c)
                    let code = Int(b.codes[i])
                    if code > 0 { out.setText(c, Array(b.dictionary.bytes[b.dictionary.range(code - 1)])) }
                case .text:
                    let t = try data.text(c)
                    if !t.isNull(i) { out.setText(c, Array(t.bytes[t.range(i)])) }
                case .place:
                    scratch.removeAll(keepingCapacity: true)
                    try data.place().write(i, into: &scratch)
                    if !scratch.isEmpty { out.setText(c, scratch) }
                }
            }
            out.endRow(present: Column.allMask, seq: 0)
        }
        return out
    }
}

/// The answer to a query: the page's rows (only the requested columns filled), a cursor
/// after its last row, and what the engine did.
public struct QueryResult: Sendable {
    var batch: RowBatch
    public let columns: [Column]
    public let cursor: Cursor?
    public let stats: QueryStats

    public var count: Int { batch.count }

    /// The rows as ``Quake`` values (fields not fetched are nil).
    public var quakes: [Quake] {
        let want = Set(columns)
        return (0..<batch.count).map { Quake(batch: batch, row: $0, columns: want) }
    }

    /// Event ids in result order.
    public var ids: [String] { (0..<batch.count).map { batch.text[Column.id.rawValue].string($0) ?? "" } }
}

extension Store {
    /// Counts matching rows without materializing any.
    public func count(_ filter: Filter) throws -> Int { try QueryExecutor(store: self).count(filter).0 }

    /// Count plus what the engine did.
    public func explainCount(_ filter: Filter) throws -> (Int, QueryStats) { try QueryExecutor(store: self).count(filter) }

    /// Runs a query; `columns` limits what is materialized (id, time and the sort keys are
    /// always read).
    public func query(_ q: QuerySpec, columns: [Column]? = nil) throws -> QueryResult {
        let ex = QueryExecutor(store: self)
        let (refs, stats) = try ex.run(q)
        let shown = columns ?? Column.allCases
        var need = Set(shown).union([.id, .time]).union(q.sort.map(\.column))
        if columns == nil { need = Set(Column.allCases) }
        let batch = try Materializer(executor: ex).rows(refs, columns: need)
        var cursor: Cursor?
        if batch.count > 0 {
            let last = batch.count - 1
            let values = q.sort.map { key -> SortValue in
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
            cursor = Cursor(sort: q.sort, values: values, id: batch.text[Column.id.rawValue].string(last) ?? "")
        }
        return QueryResult(batch: batch, columns: shown, cursor: cursor, stats: stats)
    }
}
