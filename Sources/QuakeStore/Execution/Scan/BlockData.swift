import QuakeFormat
/// The decoded columns of a window of rows (whole granules) of one block of one partition,
/// decoded on first use and kept for the window's lifetime. Kernels read these plain arrays;
/// row numbers are window-relative.
package final class BlockData {
    package let reader: PartitionReader
    package let block: Int
    /// The window's rows within its block.
    package let window: Range<Int>
    package let rows: Int
    /// Row number of the window's first row within its partition.
    package let firstRow: Int
    /// Decoded columns: slot `2 * column` holds the stored form, `2 * column + 1` doubles.
    private var cache: [ColumnVector?] = Array(repeating: nil, count: 2 * Column.count)
    package private(set) var decodedColumns = ColumnSet()
    /// Place codes of the window, and whether the dictionary beside them was read.
    private var placeCodesCache: (dictionary: ByteArena, codes: [UInt32], complete: Bool)?

    package init(reader: PartitionReader, block: Int, window: Range<Int>, firstRow: Int) {
        self.reader = reader
        self.block = block
        self.window = window
        self.rows = window.count
        self.firstRow = firstRow
    }

    /// Sets column `c` (stored form) to `v`, decoded elsewhere for exactly this window.
    package func seed(_ c: Column, _ v: ColumnVector) {
        guard v.count == rows else { return }
        cache[2 * c.rawValue] = v
    }

    /// Notes column `c` as read by a kernel that read it from the chunk without this window's
    /// cache (a few rows' place codes), so that `explain` lists it.
    package func noteRead(_ c: Column) { decodedColumns.insert(c) }

    /// Whether column `c` was decoded already (in either form).
    package func isDecoded(_ c: Column) -> Bool {
        cache[2 * c.rawValue] != nil || cache[2 * c.rawValue + 1] != nil
    }

    /// Column `c` decoded in `form`, once per window.
    private func vector(_ c: Column, _ form: VectorForm) throws -> ColumnVector {
        let slot = 2 * c.rawValue + (form == .doubles ? 1 : 0)
        if let cached = cache[slot] { return cached }
        let decoded: ColumnVector
        if form == .doubles && c.kind == .timestamp {
            decoded = .doubles(try ints(c).map { $0 == RowBatch.null ? .nan : Double($0) })
        } else {
            decoded = try reader.decode(c, block: block, rows: window, as: form)
            decodedColumns.insert(c)
        }
        guard decoded.count == rows else {
            throw QuakeError.corrupt(reader.path, "column \(c) block \(block) decodes to \(decoded.count) rows")
        }
        cache[slot] = decoded
        return decoded
    }

    package func doubles(_ c: Column) throws -> [Double] {
        switch try vector(c, .doubles) {
        case .doubles(let values): return values
        case .ints(let values): return values.map { $0 == RowBatch.null ? .nan : ScaledDecimal.double($0) }
        default: throw QuakeError.corrupt(reader.path, "column \(c) is not numeric")
        }
    }

    package func ints(_ c: Column) throws -> [Int64] {
        guard case .ints(let values) = try vector(c, .stored) else {
            throw QuakeError.corrupt(reader.path, "column \(c) is not numeric")
        }
        return values
    }

    package func category(_ c: Column) throws -> CategoryBlock {
        guard case .category(let categories) = try vector(c, .stored) else {
            throw QuakeError.corrupt(reader.path, "column \(c) is not a category")
        }
        return categories
    }

    package func text(_ c: Column) throws -> ByteArena {
        switch try vector(c, .stored) {
        case .category(let categories): return categories.arena()
        case .text(let texts): return texts
        case .place(let places): return places.arena()
        default: throw QuakeError.corrupt(reader.path, "column \(c) is not a string column")
        }
    }

    /// The place column's locality dictionary and codes, without distances or directions.
    /// With `dictionary` false the dictionary may come back empty (the codes alone are wanted).
    package func placeCodes(dictionary: Bool = true) throws -> (ByteArena, [UInt32]) {
        if let cached = placeCodesCache, cached.complete || !dictionary { return (cached.dictionary, cached.codes) }
        if case .place(let places)? = cache[2 * Column.place.rawValue] { return (places.localities, places.locality) }
        let (dict, codes) = try reader.placeCodes(block: block, rows: window, dictionary: dictionary)
        guard codes.count == rows else {
            throw QuakeError.corrupt(reader.path, "place block \(block) decodes to \(codes.count) rows")
        }
        decodedColumns.insert(.place)
        placeCodesCache = (dict, codes, dictionary)
        return (dict, codes)
    }

    package func place() throws -> PlaceBlock {
        guard case .place(let places) = try vector(.place, .stored) else {
            throw QuakeError.corrupt(reader.path, "place column")
        }
        return places
    }

    /// The string value of a string column at `row` (block-relative), or nil for null.
    package func string(_ c: Column, _ row: Int) throws -> String? {
        switch c.kind {
        case .category:
            let categories = try category(c)
            let code = Int(categories.codes[row])
            return code == 0 ? nil : categories.dictionary.string(code - 1)
        case .place:
            let places = try place()
            if places.locality[row] == 0 { return nil }
            var out: [UInt8] = []
            places.write(row, into: &out)
            return String(decoding: out, as: UTF8.self)
        case .text:
            return try text(c).string(row)
        default:
            let value = try ints(c)[row]
            if value == RowBatch.null { return nil }
            return c.kind == .timestamp ? Timestamp.string(value) : ScaledDecimal.string(value)
        }
    }

    /// The sort value of column `c` at `row`.
    package func sortValue(_ c: Column, _ row: Int) throws -> SortValue {
        switch c.kind {
        case .timestamp, .decimal:
            let value = try doubles(c)[row]
            return value.isNaN ? .null : .number(value)
        default:
            return try string(c, row).map { .text($0) } ?? .null
        }
    }

    /// The whole event at `row`, for the slow path.
    package func quake(_ row: Int) throws -> Quake {
        var batch = RowBatch()
        batch.beginRow()
        for c in Column.allCases {
            if RowBatch.isInt(c) {
                batch.ints[c.rawValue][0] = try ints(c)[row]
            } else if let text = try string(c, row) {
                batch.setText(c, Array(text.utf8))
            }
        }
        batch.endRow(present: Column.allMask, seq: 0)
        return Quake(batch: batch, row: 0)
    }
}
