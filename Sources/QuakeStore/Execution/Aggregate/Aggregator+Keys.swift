import QuakeFormat

extension Aggregator {
    /// For a key read from a small dictionary (a category column, the place's region): the
    /// window's codes and each code's key (code 0 is null). Nil for any other key.
    func dictionaryCodes(_ group: GroupBy, _ data: BlockData) throws -> ([UInt32], [Int64])? {
        switch group {
        case .value(let column) where column.kind == .category:
            let block = try data.category(column)
            return (block.codes, keyTable(block.dictionary))
        case .region:
            let (dictionary, codes) = try data.placeCodes(dictionary: true)
            return (codes, keyTable(dictionary))
        default:
            return nil
        }
    }

    /// The global name id of each dictionary entry, after the null code 0.
    func keyTable(_ dictionary: ByteArena) -> [Int64] {
        var table = [Int64](repeating: Aggregator.nullKey, count: dictionary.count + 1)
        for entry in 0..<dictionary.count { table[entry + 1] = names.id(dictionary.string(entry) ?? "") }
        return table
    }

    /// Group key `group` of each selected row.
    func keyColumn(_ group: GroupBy, _ data: BlockData, _ rows: RowList) throws -> [Int64] {
        var keys = [Int64](repeating: 0, count: rows.count)
        switch group {
        case .time, .interval, .part:
            let times = try data.ints(.time)
            guard rows.fits(times.count) else { throw QuakeError.corrupt(data.reader.path, "rows past a column's end") }
            for position in 0..<rows.count {
                keys[position] = Aggregator.timeKey(times[rows[position]], of: group)
            }
        case .bin(let column, let width):
            let values = try data.doubles(column)
            guard rows.fits(values.count) else {
                throw QuakeError.corrupt(data.reader.path, "rows past a column's end")
            }
            for position in 0..<rows.count {
                let value = values[rows[position]]
                keys[position] = value.isNaN ? Aggregator.nullKey : Aggregator.binIndex(value, width)
            }
        case .value(let column):
            return try valueCodes(column, data, rows)
        case .region:
            let (dictionary, codes) = try data.placeCodes(dictionary: true)
            let table = keyTable(dictionary)
            guard rows.fits(codes.count) else { throw QuakeError.corrupt(data.reader.path, "rows past a column's end") }
            for position in 0..<rows.count {
                let code = Int(codes[rows[position]])
                guard code < table.count else { throw QuakeError.corrupt(data.reader.path, "place code \(code)") }
                keys[position] = table[code]
            }
        }
        return keys
    }

    /// The bin of `value` under `width`: k with k·width ≤ value < (k + 1)·width, in decimal, as
    /// the stored numbers are. A quotient a rounding error short of a whole number is that
    /// number: 0.3 / 0.1 is 2.9999999999999996 in binary, and 0.3 is in the bin that starts at 0.3.
    static func binIndex(_ value: Double, _ width: Double) -> Int64 {
        let quotient = value / width
        let nearest = quotient.rounded()
        if abs(quotient - nearest) <= 1e-9 * Swift.max(1, abs(nearest)) { return Int64(saturating: nearest) }
        return Int64(saturating: quotient.rounded(.down))
    }

    /// The start of bin `index` of `width`, on a 1e-9 grid: 3 × 0.1 is 0.3, not 0.30000000000000004.
    package static func binStart(_ index: Int64, _ width: Double) -> Double {
        (Double(index) * width * 1e9).rounded() / 1e9
    }

    /// The key of time `t` under a time grouping (0 for any other).
    static func timeKey(_ t: Int64, of group: GroupBy) -> Int64 {
        switch group {
        case .time(let calendar): return bucket(t, calendar)
        case .interval(let length): return intervalStart(t, length)
        case .part(let part):
            let day = t >= 0 ? t / 86_400_000 : (t - 86_399_999) / 86_400_000
            let millisecondOfDay = t - day * 86_400_000
            switch part {
            case .hourOfDay: return millisecondOfDay / 3_600_000
            // 1970-01-01 was a Thursday: 4 with Sunday as 0
            case .dayOfWeek: return ((day + 4) % 7 + 7) % 7
            case .quarter: return Int64((Timestamp.civil(days: Int(day)).month - 1) / 3 + 1)
            }
        default: return 0
        }
    }

    /// A code per selected row of column `column`'s value, equal for equal values, and
    /// ``nullKey`` for null: the bits of a number (-0 as 0), the stored integer of a time, the global name id of a
    /// string, and for a place its locality's name id packed with its distance and direction.
    func valueCodes(_ column: Column, _ data: BlockData, _ rows: RowList) throws -> [Int64] {
        var codes = [Int64](repeating: Aggregator.nullKey, count: rows.count)
        switch column.kind {
        case .timestamp:
            let values = try data.ints(column)
            guard rows.fits(values.count) else {
                throw QuakeError.corrupt(data.reader.path, "rows past a column's end")
            }
            for position in 0..<rows.count {
                let value = values[rows[position]]
                codes[position] = value == RowBatch.null ? Aggregator.nullKey : value
            }
        case .decimal:
            // by value: the stored decimals keep their digits ("1.2" and "1.20"), which are one number
            let values = try data.doubles(column)
            guard rows.fits(values.count) else {
                throw QuakeError.corrupt(data.reader.path, "rows past a column's end")
            }
            for position in 0..<rows.count {
                let value = values[rows[position]]
                codes[position] = value.isNaN ? Aggregator.nullKey : Int64(bitPattern: (value + 0).bitPattern)
            }
        case .category:
            let block = try data.category(column)
            let table = keyTable(block.dictionary)
            guard rows.fits(block.codes.count) else {
                throw QuakeError.corrupt(data.reader.path, "rows past a column's end")
            }
            for position in 0..<rows.count {
                let code = Int(block.codes[rows[position]])
                guard code < table.count else { throw QuakeError.corrupt(data.reader.path, "\(column) code \(code)") }
                codes[position] = table[code]
            }
        case .place:
            try placeCodes(data, rows, into: &codes)
        default:
            for position in 0..<rows.count {
                if let text = try data.string(column, rows[position]) { codes[position] = names.id(text) }
            }
        }
        return codes
    }

    /// The codes of the place column's selected rows (see ``valueCodes(_:_:_:)``), written into `codes`.
    private func placeCodes(_ data: BlockData, _ rows: RowList, into codes: inout [Int64]) throws {
        let place = try data.place()
        let table = keyTable(place.localities)
        guard rows.fits(place.locality.count) else {
            throw QuakeError.corrupt(data.reader.path, "rows past a column's end")
        }
        for position in 0..<rows.count {
            let row = rows[position]
            let code = Int(place.locality[row])
            guard code < table.count else { throw QuakeError.corrupt(data.reader.path, "place code \(code)") }
            guard code != 0 else { continue }
            let locality = table[code]
            if locality < Aggregator.packedLocalityLimit {
                codes[position] = locality << 40 | Int64(place.direction[row]) << 32
                    | Int64(UInt32(bitPattern: place.distance[row]))
            } else {
                // more localities than the packing holds: the whole text's name id, negated
                var text: [UInt8] = []
                place.write(row, into: &text)
                codes[position] = -names.id(String(decoding: text, as: UTF8.self))
            }
        }
    }

    /// Locality name ids below this pack into a place code (23 bits, over 8 bits of direction
    /// and 32 of distance).
    static let packedLocalityLimit: Int64 = 1 << 23

    /// The text of a place code made by ``valueCodes(_:_:_:)``.
    func placeText(_ code: Int64) -> String {
        if code < 0 { return names.name(-code) }
        let locality = names.name(code >> 40)
        let direction = UInt8(truncatingIfNeeded: code >> 32)
        guard direction != PlacePayload.noPattern else { return locality }
        let distance = UInt32(truncatingIfNeeded: code)
        let space = direction & PlacePayload.spaceFlag != 0 ? " " : ""
        let letters = PlacePayload.directions[Int(direction & 0x0F)]
        return "\(distance)\(space)km \(letters) of \(locality)"
    }
}
