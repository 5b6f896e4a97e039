import QuakeFormat
import QuakeStore

/// The type a column has in Arrow and Parquet output, shared by the query writers and the
/// typed tables of `agg` (``AggregateTable``).
package enum InterchangeType: Sendable, Equatable {
    /// UTC epoch milliseconds: Arrow `timestamp[ms, tz=UTC]`, Parquet `TIMESTAMP(MILLIS, UTC)`.
    case timestamp
    /// A signed 64-bit integer: Arrow `int64`, Parquet `INT64`.
    case int64
    /// A double: Arrow `float64`, Parquet `DOUBLE`.
    case float64
    /// Text: Arrow `utf8`, Parquet `BYTE_ARRAY` annotated `STRING`.
    case utf8

    /// Stored fields whose values are counts, which USGS publishes as integers: they go out as
    /// ``int64``, every other decimal as ``float64``.
    package static let integerColumns: Set<Column> = [.nst, .magNst]

    /// How a stored column goes out: times as timestamps, `nst` and `magNst` as integers, other
    /// numbers as doubles, text as UTF-8.
    package init(_ column: Column) {
        switch column.kind {
        case .timestamp: self = .timestamp
        case .decimal: self = InterchangeType.integerColumns.contains(column) ? .int64 : .float64
        case .category, .text, .place: self = .utf8
        }
    }

    /// Whether a value is 8 bytes wide (every type but text).
    package var isFixedWidth: Bool { self != .utf8 }

    /// The Arrow schema's `Type` union member: its tag and its table.
    package var arrowType: (tag: UInt8, table: FlatBufferWriter.Value) {
        switch self {
        case .timestamp: return (10, .table([.i16(1), .string("UTC")]))  // Timestamp(MILLISECOND, "UTC")
        case .int64: return (2, .table([.i32(64), .bool(true)]))  // Int(bitWidth: 64, is_signed: true)
        case .float64: return (3, .table([.i16(2)]))  // FloatingPoint(DOUBLE)
        case .utf8: return (5, .table([]))  // Utf8
        }
    }

    /// The 8-byte little-endian bit pattern of a stored column's non-null value `stored` in
    /// this type: a time as is, an integer rounded from its decimal, a double from its decimal.
    package func bits(stored: Int64) -> UInt64 {
        switch self {
        case .timestamp: return UInt64(bitPattern: stored)
        case .int64: return UInt64(bitPattern: ScaledDecimal.roundedInteger(stored))
        case .float64, .utf8: return ScaledDecimal.double(stored).bitPattern
        }
    }
}

extension ScaledDecimal {
    /// A stored decimal as the nearest integer, halves away from zero: the mantissa itself for
    /// the integers USGS writes (`12`), and `12.5` as 13. Exact, whatever the scale; 0 for null.
    package static func roundedInteger(_ stored: Int64) -> Int64 {
        guard stored != null else { return 0 }
        let scale = Int(stored & 31)
        let mantissa = stored >> 6
        guard scale > 0 else { return mantissa }
        // a mantissa is below 2^57 < 10^18, so from 10^18 on every value rounds to 0
        guard scale < 18 else { return 0 }
        var divisor: UInt64 = 1
        for _ in 0..<scale { divisor *= 10 }
        let magnitude = mantissa.magnitude
        let quotient = magnitude / divisor
        let remainder = magnitude % divisor
        let rounded = remainder * 2 >= divisor ? quotient + 1 : quotient
        // rounded <= 2^57, so it fits an Int64 either way
        return mantissa < 0 ? -Int64(rounded) : Int64(rounded)
    }
}
