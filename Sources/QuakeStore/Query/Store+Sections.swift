import QuakeFormat
/// One section of a sectioned fetch (like SwiftData's `sectionBy`): its id, its row count and
/// its first rows.
package struct Section: Sendable {
    package var id: String?
    package var count: Int
    package var rows: QueryResult
}

extension Store {
    /// Groups matching rows into sections by day, month, net or magType (or any `GroupBy`),
    /// each with its count and up to `limitPerSection` rows in `sort` order. Sections follow
    /// their key, newest first when the sort's primary key is time descending.
    package func sections(_ filter: Filter, by key: GroupBy, sort: [SortKey], limitPerSection: Int?,
                          columns: [Column]? = nil) throws -> [Section] {
        let newestFirst = sort.first.map({ $0.column == .time && !$0.ascending }) == true
        return try sectionGroups(filter, by: key, newestFirst: newestFirst).map { group in
            let spec = QuerySpec(filter: .conjunction([filter, group.filter]), sort: sort, limit: limitPerSection)
            let rows = try query(spec, columns: columns)
            return Section(id: group.id, count: group.count, rows: rows)
        }
    }

    /// The groups of the rows `filter` matches under `key`, in key order (newest first for a
    /// time key when asked), each with its count and the filter that selects it.
    package func sectionGroups(_ filter: Filter, by key: GroupBy, newestFirst: Bool) throws
        -> [(id: String?, count: Int, filter: Filter)] {
        switch key {
        case .part, .region:
            throw QuakeError.argument("sections by \(key)", "a time bucket, an interval, a text property or a bin")
        default: break
        }
        let (groups, _) = try aggregate(filter, by: [key], metrics: [.count])
        var ordered = groups
        if newestFirst, Aggregator.timeKey(0, key) != nil { ordered.reverse() }
        return ordered.map { group in
            let sectionFilter: Filter
            switch (key, group.keyValues[0]) {
            case (.time(let bucket), .number(let start)):
                let bucketStart = Int64(start)
                let next = Aggregator.bucket(bucketStart + Self.bucketSpan(bucket), bucket)
                sectionFilter = .timeRange(.time, lower: bucketStart, upper: next)
            case (.interval(let length), .number(let start)):
                sectionFilter = .timeRange(.time, lower: Int64(start), upper: Int64(start) + length)
            case (.value(let column), .text(let value)): sectionFilter = .oneOf(column, [value])
            case (.value(let column), .null), (.bin(let column, _), .null): sectionFilter = .isNull(column)
            case (.bin(let column, let width), .number(let lo)):
                let upper = ((lo + width) * 1e9).rounded() / 1e9
                sectionFilter = .numberRange(column, lower: .init(lo), upper: .init(upper, inclusive: false))
            default: sectionFilter = .none
            }
            return (group.keys[0], Int(group.values[0] ?? 0), sectionFilter)
        }
    }

    /// A span that lands inside the next bucket when added to a bucket start.
    package static func bucketSpan(_ b: GroupBy.TimeBucket) -> Int64 {
        switch b {
        case .hour: return 3_600_000
        case .day: return 86_400_000
        case .week: return 7 * 86_400_000
        case .month: return 32 * 86_400_000
        case .year: return 367 * 86_400_000
        }
    }
}
