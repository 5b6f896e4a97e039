import Foundation
import QuakeFormat

/// Per-row masks over a window's plain arrays, for the filter leaves that have no selection
/// kernel (distance, text and numeric `oneOf`, prefix-touching place search, nulls, cursors).
extension BlockData {
    /// One flag per row of the window for the leaves ``select(_:_:)`` has no kernel of its own
    /// for; anything else goes through the selection kernels.
    package func mask(_ f: Filter) throws -> [Bool] {
        switch f {
        case .near(let latitude, let longitude, let radius):
            let lat = try doubles(.latitude)
            let lon = try doubles(.longitude)
            return (0..<rows).map { Geo.distanceKm(latitude, longitude, lat[$0], lon[$0]) <= radius }
        case .oneOf(let column, let values):
            return try oneOf(column, values)
        case .ids(let set):
            let ids = try text(.id)
            // SAFETY: vector() checked the column holds `rows` values, so each ids.range($0) lies in its bytes;
            // `raw` does not escape the closure (contains only reads the slice).
            return ids.bytes.withUnsafeBytes { raw in
                (0..<rows).map { set.contains(UnsafeRawBufferPointer(rebasing: raw[ids.range($0)])) }
            }
        case .contains(let column, let needle, let insensitive):
            return try contains(column, needle, insensitive)
        case .isNull(let column):
            switch column.kind {
            case .timestamp: return try ints(column).map { $0 == RowBatch.null }
            case .decimal: return try doubles(column).map { $0.isNaN }
            case .category: return try category(column).codes.map { $0 == 0 }
            case .place: return try place().locality.map { $0 == 0 }
            case .text:
                let texts = try text(column)
                return (0..<rows).map { texts.isNull($0) }
            }
        case .after(let cursor):
            // decide on the primary key from its plain column; build full sort values (and the
            // id string) only for rows that tie with the cursor there
            let first = cursor.sort[0]
            var out = [Bool](repeating: false, count: rows)
            var ties: [Int] = []
            if first.column.kind == .decimal || first.column.kind == .timestamp {
                let values = try doubles(first.column)
                for i in 0..<rows {
                    let comparison = SortValue.compare(cursor.values[0], values[i].isNaN ? .null : .number(values[i]),
                                                       ascending: first.ascending)
                    if comparison < 0 { out[i] = true } else if comparison == 0 { ties.append(i) }
                }
            } else {
                ties = Array(0..<rows)
            }
            if !ties.isEmpty {
                let ids = try text(.id)
                for i in ties {
                    let values = try cursor.sort.map { try sortValue($0.column, i) }
                    out[i] = cursor.isBefore(values, id: ids.string(i) ?? "")
                }
            }
            return out
        case .all, .none, .timeRange, .timeWindows, .numberRange, .box, .arithmetic, .and, .or, .not, .predicate:
            return flags(try select(f, .all(rows)))
        }
    }

    /// One flag per row of the window, set where `s` selects.
    private func flags(_ selection: Selection) -> [Bool] {
        if case .all = selection { return [Bool](repeating: true, count: rows) }
        var out = [Bool](repeating: false, count: rows)
        selection.forEach { out[$0] = true }
        return out
    }

    private func oneOf(_ c: Column, _ values: [String]) throws -> [Bool] {
        switch c.kind {
        case .category:
            return flags(try select(.oneOf(c, values), .all(rows)))
        case .text where values.count > 8:
            // a long list (a thousand ids): one hash lookup a row, not a comparison a value
            return try mask(.ids(EventIdSet(values)))
        case .text:
            let texts = try text(c)
            let wanted = values.map { Array($0.utf8) }
            return (0..<rows).map { i in wanted.contains { w in w.elementsEqual(texts.bytes[texts.range(i)]) } }
        case .place:
            let wanted = Set(values)
            return try (0..<rows).map { i in try string(c, i).map { wanted.contains($0) } ?? false }
        case .timestamp, .decimal:
            let numbers = values.compactMap { Double($0) }
            return try doubles(c).map { value in numbers.contains(value) }
        }
    }

    private func contains(_ c: Column, _ s: String, _ insensitive: Bool) throws -> [Bool] {
        let needle = insensitive ? ByteSearch.fold(s) : Array(s.utf8)
        switch c.kind {
        case .place:
            return PlaceMatcher(s, insensitive: insensitive).mask(try place())
        case .category:
            let categories = try category(c)
            let dictionary = categories.dictionary
            var table = [Bool](repeating: false, count: dictionary.count + 1)
            for k in 0..<dictionary.count {
                let bytes = Array(dictionary.bytes[dictionary.range(k)])
                table[k + 1] = ByteSearch.contains(insensitive ? ByteSearch.fold(bytes) : bytes, needle)
            }
            return categories.codes.map { table[Int($0)] }
        case .text:
            let texts = try text(c)
            // SAFETY: vector() checked the column holds `rows` values, so each texts.range(i) lies in its bytes;
            // `raw` does not escape the closure.
            return texts.bytes.withUnsafeBytes { raw in
                (0..<rows).map { i in
                    if insensitive { return ByteSearch.contains(ByteSearch.fold(texts.bytes[texts.range(i)]), needle) }
                    return ByteSearch.contains(UnsafeRawBufferPointer(rebasing: raw[texts.range(i)]), needle)
                }
            }
        case .timestamp, .decimal:
            return try (0..<rows).map { i in
                guard let text = try string(c, i) else { return false }
                return ByteSearch.contains(Array(text.utf8), needle)
            }
        }
    }
}

infix operator &&&: LogicalConjunctionPrecedence
infix operator |||: LogicalDisjunctionPrecedence

/// Branch-free Boolean and/or (both sides always evaluated), so kernel loops vectorize.
@inline(__always) package func &&& (a: Bool, b: Bool) -> Bool {
    // SAFETY: Bool is one byte holding 0 or 1; & of two such bytes is 0 or 1 again, a valid Bool.
    unsafeBitCast(unsafeBitCast(a, to: UInt8.self) & unsafeBitCast(b, to: UInt8.self), to: Bool.self)
}

@inline(__always) package func ||| (a: Bool, b: Bool) -> Bool {
    // SAFETY: Bool is one byte holding 0 or 1; | of two such bytes is 0 or 1 again, a valid Bool.
    unsafeBitCast(unsafeBitCast(a, to: UInt8.self) | unsafeBitCast(b, to: UInt8.self), to: Bool.self)
}

/// Great-circle distance.
package enum Geo {
    package static let earthRadiusKm = 6371.0088

    @inline(__always)
    package static func distanceKm(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dlat = (lat2 - lat1) * radians
        let dlon = (lon2 - lon1) * radians
        let haversine = sin(dlat / 2) * sin(dlat / 2)
            + cos(lat1 * radians) * cos(lat2 * radians) * sin(dlon / 2) * sin(dlon / 2)
        return 2 * earthRadiusKm * asin(min(1, sqrt(haversine)))
    }
}
