import Foundation
import QuakeStore
import QuakeFormat
import QuakeInterchange

/// Straightforward reference implementations the engine's kernels are compared against:
/// filters evaluated field by field on `Quake` values, sorts with `sorted(by:)`, and groups
/// with dictionaries.
package enum Naive {
    package static func value(_ q: Quake, _ c: Column) -> SortValue {
        func n(_ d: Double?) -> SortValue { d.map { .number($0) } ?? .null }
        func s(_ v: String?) -> SortValue { v.map { .text($0) } ?? .null }
        func i(_ v: Int?) -> SortValue { v.map { .number(Double($0)) } ?? .null }
        switch c {
        case .time: return .number(Double(q.timeMilliseconds))
        case .updated: return q.updated.map { .number(($0.timeIntervalSince1970 * 1000).rounded()) } ?? .null
        case .latitude: return .number(q.latitude)
        case .longitude: return .number(q.longitude)
        case .depth: return n(q.depth)
        case .mag: return n(q.magnitude)
        case .magType: return s(q.magType)
        case .nst: return i(q.nst)
        case .gap: return n(q.gap)
        case .dmin: return n(q.dmin)
        case .rms: return n(q.rms)
        case .net: return s(q.net)
        case .id: return .text(q.id)
        case .place: return s(q.place)
        case .type: return s(q.type)
        case .horizontalError: return n(q.horizontalError)
        case .depthError: return n(q.depthError)
        case .magError: return n(q.magError)
        case .magNst: return i(q.magNst)
        case .status: return s(q.status)
        case .locationSource: return s(q.locationSource)
        case .magSource: return s(q.magSource)
        case .felt: return i(q.felt)
        case .cdi: return n(q.cdi)
        case .mmi: return n(q.mmi)
        case .alert: return s(q.alert)
        case .tsunami: return i(q.tsunami)
        case .sig: return i(q.sig)
        case .tz: return i(q.tz)
        case .url: return s(q.url)
        case .detail: return s(q.detail)
        case .code: return s(q.code)
        case .ids: return s(q.ids)
        case .sources: return s(q.sources)
        case .types: return s(q.types)
        case .title: return s(q.title)
        }
    }

    package static func bytesContain(_ hay: String, _ needle: String) -> Bool {
        let hayBytes = Array(hay.utf8)
        let needleBytes = Array(needle.utf8)
        if needleBytes.isEmpty { return true }
        if needleBytes.count > hayBytes.count { return false }
        for i in 0...(hayBytes.count - needleBytes.count)
        where Array(hayBytes[i..<(i + needleBytes.count)]) == needleBytes {
            return true
        }
        return false
    }

    package static func fold(_ s: String) -> String {
        s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    package static func haversine(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> Double {
        let radians = Double.pi / 180
        let halfLat = sin((c - a) * radians / 2)
        let halfLon = sin((d - b) * radians / 2)
        let chord = halfLat * halfLat + cos(a * radians) * cos(c * radians) * halfLon * halfLon
        return 2 * 6371.0088 * asin(min(1, chord.squareRoot()))
    }

    package static func matches(_ f: Filter, _ q: Quake) throws -> Bool {
        switch f {
        case .all: return true
        case .none: return false
        case .timeRange(let column, let lo, let hi):
            guard case .number(let number) = value(q, column) else { return false }
            return (lo.map { number >= Double($0) } ?? true) && (hi.map { number < Double($0) } ?? true)
        case .timeWindows(let windows):
            guard case .number(let number) = value(q, .time) else { return false }
            return windows.spans.contains { Double($0.lowerBound) <= number && number < Double($0.upperBound) }
        case .numberRange(let column, let lo, let hi):
            guard case .number(let number) = value(q, column) else { return false }
            if let lo, lo.inclusive ? !(number >= lo.value) : !(number > lo.value) { return false }
            if let hi, hi.inclusive ? !(number <= hi.value) : !(number < hi.value) { return false }
            return true
        case .box(let south, let north, let west, let east):
            guard q.latitude >= south && q.latitude <= north else { return false }
            return west <= east
                ? (q.longitude >= west && q.longitude <= east)
                : (q.longitude >= west || q.longitude <= east)
        case .near(let latitude, let longitude, let radius):
            return haversine(latitude, longitude, q.latitude, q.longitude) <= radius
        case .oneOf(let column, let vs):
            guard case .text(let text) = value(q, column) else {
                if case .number(let number) = value(q, column) { return vs.compactMap { Double($0) }.contains(number) }
                return false
            }
            return vs.contains(text)
        case .contains(let column, let needle, let insensitive):
            guard case .text(let text) = value(q, column) else { return false }
            return insensitive ? bytesContain(fold(text), fold(needle)) : bytesContain(text, needle)
        case .isNull(let column):
            return value(q, column) == .null
        case .arithmetic(let comparison):
            return comparison.holds { column in
                if case .number(let number) = value(q, column) { return number }
                return .nan
            }
        case .ids(let set): return set.contains(q.id)
        case .and(let fs): return try fs.allSatisfy { try matches($0, q) }
        case .or(let fs): return try fs.contains { try matches($0, q) }
        case .not(let negated): return try !matches(negated, q)
        case .after(let cur):
            return cur.isBefore(cur.sort.map { value(q, $0.column) }, id: q.id)
        case .predicate(let predicate): return try predicate.evaluate(q)
        }
    }

    package static func sorted(_ qs: [Quake], _ keys: [SortKey]) -> [Quake] {
        qs.sorted { a, b in
            for k in keys {
                let order = SortValue.compare(value(a, k.column), value(b, k.column), ascending: k.ascending)
                if order != 0 { return order < 0 }
            }
            return a.id < b.id
        }
    }

    package static func query(_ all: [Quake], _ q: QuerySpec) throws -> [Quake] {
        var rows = try all.filter { try matches(q.filter, $0) }
        if let cursor = q.after {
            rows = rows.filter { row in cursor.isBefore(cursor.sort.map { k in value(row, k.column) }, id: row.id) }
        }
        let page = sorted(rows, q.sort).dropFirst(q.offset)
        return Array(q.limit.map { page.prefix($0) } ?? page).map(withTitle)
    }

    /// `quake` as a reader is shown it: without a stored title, USGS's, made from the magnitude
    /// rounded half away from zero to one decimal (by Foundation's `Decimal`, from its shortest
    /// text), the type when it is not an earthquake (each word capitalised) and the place.
    package static func withTitle(_ quake: Quake) -> Quake {
        guard quake.title == nil else { return quake }
        var made = "M "
        if let magnitude = quake.magnitude, var exact = Decimal(string: "\(magnitude)") {
            var rounded = Decimal()
            NSDecimalRound(&rounded, &exact, 1, .plain)
            let text = "\(rounded)"
            made += text.contains(".") ? text : text + ".0"
            if magnitude < 0 || (magnitude == 0 && magnitude.sign == .minus), !made.hasPrefix("M -") {
                made = "M -" + made.dropFirst(2)
            }
        } else {
            made += "?"
        }
        if let type = quake.type, !type.isEmpty, type != "earthquake" {
            made += " " + type.split(separator: " ", omittingEmptySubsequences: false)
                .map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
        }
        if let place = quake.place, !place.isEmpty { made += " - " + place }
        var titled = quake
        titled.title = made
        return titled
    }
}
