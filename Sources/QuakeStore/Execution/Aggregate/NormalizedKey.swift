import QuakeFormat
/// Fixed-width sort keys, after DuckDB's normalized keys: one `UInt64` per row whose unsigned
/// order is the sort order (ascending or descending), with nulls last as `UInt64.max`. Ties
/// on the key are broken by event id only at the end, for the few rows that tie.
package enum NormalizedKey {
    package static let null = UInt64.max

    /// The key of a decoded decimal (NaN for null); `-0.0` and `0.0` are one key.
    @inline(__always)
    package static func double(_ d: Double, ascending: Bool) -> UInt64 {
        if d.isNaN { return null }
        let bits = (d + 0.0).bitPattern
        // negative values flip every bit, positive ones set the sign: ascending in [1, max - 1)
        let asc = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        return ascending ? asc : ~asc
    }

    /// The key of a stored timestamp (`RowBatch.null` for null).
    @inline(__always)
    package static func time(_ v: Int64, ascending: Bool) -> UInt64 {
        if v == RowBatch.null { return null }
        // v > Int64.min, so asc lies in [0, max - 1)
        let asc = UInt64(bitPattern: v ^ Int64.min) &- 1
        return ascending ? asc : (UInt64.max - 1) &- asc
    }

    /// The best key a zone can hold for column `c` (its min ascending, its max descending),
    /// or `null` when every row is null.
    package static func bound(_ z: ZoneStats, _ c: Column, ascending: Bool) -> UInt64 {
        if z.nulls >= z.rows { return null }
        if c.kind == .timestamp { return time(ascending ? z.min : z.max, ascending: ascending) }
        return double(ascending ? z.minDouble : z.maxDouble, ascending: ascending)
    }

    /// The values of column `c` whose key is at most `cut` (never null), as a range the codecs
    /// can test on encoded values; nil when every value passes (`cut` is the null key).
    package static func range(upTo cut: UInt64, _ c: Column, ascending: Bool) -> RangePredicate? {
        if cut == null { return nil }
        if c.kind == .timestamp {
            let asc = ascending ? cut : (UInt64.max - 1) &- cut
            let time = Int64(bitPattern: asc &+ 1) ^ Int64.min
            return ascending ? .time(lower: nil, upper: time == Int64.max ? nil : time + 1)
                : .time(lower: time, upper: nil)
        }
        let asc = ascending ? cut : ~cut
        let bits = asc & (1 << 63) != 0 ? asc & ~(1 << 63) : ~asc
        let value = Double(bitPattern: bits)
        return ascending ? .number(lower: nil, upper: .init(value)) : .number(lower: .init(value), upper: nil)
    }
}
