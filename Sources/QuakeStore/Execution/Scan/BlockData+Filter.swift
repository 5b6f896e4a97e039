import Foundation
import QuakeFormat

/// Per-row masks over a window's plain arrays, for the filter leaves that have no selection
/// kernel (distance, text and numeric `oneOf`, prefix-touching place search, nulls, cursors).
extension BlockData {
    /// One flag per row of the window for the leaves ``select(_:_:)`` has no kernel of its own
    /// for; anything else goes through the selection kernels.
    package func mask(_ f: Filter) throws -> [Bool] {
        switch f {
        case .near(let la, let lo, let r):
            let lat = try doubles(.latitude), lon = try doubles(.longitude)
            return (0..<rows).map { Geo.distanceKm(la, lo, lat[$0], lon[$0]) <= r }
        case .oneOf(let c, let values):
            return try oneOf(c, values)
        case .ids(let set):
            let t = try text(.id)
            // SAFETY: vector() checked the column holds `rows` values, so each t.range($0) lies in its bytes;
            // `raw` does not escape the closure (contains only reads the slice).
            return t.bytes.withUnsafeBytes { raw in
                (0..<rows).map { set.contains(UnsafeRawBufferPointer(rebasing: raw[t.range($0)])) }
            }
        case .contains(let c, let s, let insensitive):
            return try contains(c, s, insensitive)
        case .isNull(let c):
            switch c.kind {
            case .timestamp: return try ints(c).map { $0 == RowBatch.null }
            case .decimal: return try doubles(c).map { $0.isNaN }
            case .category: return try category(c).codes.map { $0 == 0 }
            case .place: return try place().locality.map { $0 == 0 }
            case .text: let t = try text(c); return (0..<rows).map { t.isNull($0) }
            }
        case .after(let cursor):
            // decide on the primary key from its plain column; build full sort values (and the
            // id string) only for rows that tie with the cursor there
            let first = cursor.sort[0]
            var out = [Bool](repeating: false, count: rows)
            var ties: [Int] = []
            if first.column.kind == .decimal || first.column.kind == .timestamp {
                let v = try doubles(first.column)
                for i in 0..<rows {
                    let c = SortValue.compare(cursor.values[0], v[i].isNaN ? .null : .number(v[i]), ascending: first.ascending)
                    if c < 0 { out[i] = true } else if c == 0 { ties.append(i) }
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
        case .all, .none, .timeRange, .numberRange, .box, .arithmetic, .and, .or, .not, .predicate:
            return flags(try select(f, .all(rows)))
        }
    }

    /// One flag per row of the window, set where `s` selects.
    private func flags(_ s: Selection) -> [Bool] {
        if case .all = s { return [Bool](repeating: true, count: rows) }
        var out = [Bool](repeating: false, count: rows)
        s.forEach { out[$0] = true }
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
            let t = try text(c)
            let wanted = values.map { Array($0.utf8) }
            return (0..<rows).map { i in wanted.contains { w in w.elementsEqual(t.bytes[t.range(i)]) } }
        case .place:
            let wanted = Set(values)
            return try (0..<rows).map { i in try string(c, i).map { wanted.contains($0) } ?? false }
        case .timestamp, .decimal:
            let nums = values.compactMap { Double($0) }
            return try doubles(c).map { v in nums.contains(v) }
        }
    }

    private func contains(_ c: Column, _ s: String, _ insensitive: Bool) throws -> [Bool] {
        let needle = insensitive ? ByteSearch.fold(s) : Array(s.utf8)
        switch c.kind {
        case .place:
            return PlaceMatcher(s, insensitive: insensitive).mask(try place())
        case .category:
            let b = try category(c)
            var table = [Bool](repeating: false, count: b.dictionary.count + 1)
            for k in 0..<b.dictionary.count {
                let bytes = Array(b.dictionary.bytes[b.dictionary.range(k)])
                table[k + 1] = ByteSearch.contains(insensitive ? ByteSearch.fold(bytes) : bytes, needle)
            }
            return b.codes.map { table[Int($0)] }
        case .text:
            let t = try text(c)
            // SAFETY: vector() checked the column holds `rows` values, so each t.range(i) lies in its bytes;
            // `raw` does not escape the closure.
            return t.bytes.withUnsafeBytes { raw in
                (0..<rows).map { i in
                    if insensitive { return ByteSearch.contains(ByteSearch.fold(t.bytes[t.range(i)]), needle) }
                    return ByteSearch.contains(UnsafeRawBufferPointer(rebasing: raw[t.range(i)]), needle)
                }
            }
        case .timestamp, .decimal:
            return try (0..<rows).map { i in
                guard let v = try string(c, i) else { return false }
                return ByteSearch.contains(Array(v.utf8), needle)
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
        let r = Double.pi / 180
        let dlat = (lat2 - lat1) * r, dlon = (lon2 - lon1) * r
        let a = sin(dlat / 2) * sin(dlat / 2) + cos(lat1 * r) * cos(lat2 * r) * sin(dlon / 2) * sin(dlon / 2)
        return 2 * earthRadiusKm * asin(min(1, sqrt(a)))
    }
}
