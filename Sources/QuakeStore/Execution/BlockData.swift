/// The decoded columns of one block of one partition, decoded on first use and kept for the
/// block's lifetime. Kernels read these plain arrays.
final class BlockData {
    let reader: PartitionReader
    let block: Int
    let rows: Int
    /// Row number of the block's first row within its partition.
    let firstRow: Int
    private var doubleCache: [Int: [Double]] = [:]
    private var intCache: [Int: [Int64]] = [:]
    private var categoryCache: [Int: CategoryBlock] = [:]
    private var textCache: [Int: ByteArena] = [:]
    private var placeCache: PlaceBlock?
    private(set) var decodedColumns = Set<Column>()

    init(reader: PartitionReader, block: Int, rows: Int, firstRow: Int) {
        self.reader = reader
        self.block = block
        self.rows = rows
        self.firstRow = firstRow
    }

    func doubles(_ c: Column) throws -> [Double] {
        if let v = doubleCache[c.rawValue] { return v }
        let v: [Double]
        if c.kind == .timestamp { v = try ints(c).map { $0 == RowBatch.null ? .nan : Double($0) } } else {
            v = try reader.doubles(c, block: block)
            decodedColumns.insert(c)
        }
        doubleCache[c.rawValue] = v
        return v
    }

    func ints(_ c: Column) throws -> [Int64] {
        if let v = intCache[c.rawValue] { return v }
        let v = try reader.ints(c, block: block)
        decodedColumns.insert(c)
        intCache[c.rawValue] = v
        return v
    }

    func category(_ c: Column) throws -> CategoryBlock {
        if let v = categoryCache[c.rawValue] { return v }
        let v = try reader.category(c, block: block)
        decodedColumns.insert(c)
        categoryCache[c.rawValue] = v
        return v
    }

    func text(_ c: Column) throws -> ByteArena {
        if let v = textCache[c.rawValue] { return v }
        let v = try reader.arena(c, block: block)
        decodedColumns.insert(c)
        textCache[c.rawValue] = v
        return v
    }

    func place() throws -> PlaceBlock {
        if let p = placeCache { return p }
        let p = try reader.place(block: block)
        decodedColumns.insert(.place)
        placeCache = p
        return p
    }

    /// The string value of a string column at `row` (block-relative), or nil for null.
    func string(_ c: Column, _ row: Int) throws -> String? {
        switch c.kind {
        case .category:
            let b = try category(c)
            let code = Int(b.codes[row])
            return code == 0 ? nil : b.dictionary.string(code - 1)
        case .place:
            let p = try place()
            if p.locality[row] == 0 { return nil }
            var out: [UInt8] = []
            p.write(row, into: &out)
            return String(decoding: out, as: UTF8.self)
        case .text:
            return try text(c).string(row)
        default:
            let v = try ints(c)[row]
            if v == RowBatch.null { return nil }
            return c.kind == .timestamp ? Timestamp.string(v) : ScaledDecimal.string(v)
        }
    }

    /// The sort value of column `c` at `row`.
    func sortValue(_ c: Column, _ row: Int) throws -> SortValue {
        switch c.kind {
        case .timestamp, .decimal:
            let d = try doubles(c)[row]
            return d.isNaN ? .null : .number(d)
        default:
            return try string(c, row).map { .text($0) } ?? .null
        }
    }

    /// The whole event at `row`, for the slow path.
    func quake(_ row: Int) throws -> Quake {
        var b = RowBatch()
        b.beginRow()
        for c in Column.allCases {
            if RowBatch.isInt(c) {
                b.ints[c.rawValue][0] = try ints(c)[row]
            } else if let s = try string(c, row) {
                b.setText(c, Array(s.utf8))
            }
        }
        b.endRow(present: Column.allMask, seq: 0)
        return Quake(batch: b, row: 0)
    }
}
