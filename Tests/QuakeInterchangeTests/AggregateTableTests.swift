import Foundation
import Testing
@testable import QuakeInterchange
import QuakeFormat
import QuakeStore

/// The typed-column pieces of `agg --format arrow|parquet`: the integer a stored decimal writes as
/// (`nst`, `magNst`), each key's and metric's type, and tables whose columns disagree.
@Suite struct AggregateTableTests {
    /// The stored form of decimal text, as a load parses it.
    static func stored(_ text: String) throws -> Int64 {
        // SAFETY: the bytes are lent for the call only; parse does not keep them.
        try Array(text.utf8).withUnsafeBytes { bytes in try ScaledDecimal.parse(bytes) }
    }

    @Test func storedDecimalsRoundToTheNearestInteger() throws {
        let cases: [(String, Int64)] = [
            ("12", 12), ("12.0", 12), ("0", 0), ("-0", 0), ("-0.0", 0), ("12.5", 13), ("-12.5", -13), ("12.49", 12),
            ("0.4", 0), ("0.5", 1), ("-0.5", -1), ("1e3", 1000), ("1.5e-20", 0),
            ("144115188075855", 144_115_188_075_855),
            ("0.00000000000000000001", 0), ("99999999999999.99", 100_000_000_000_000),
        ]
        for (text, integer) in cases {
            #expect(ScaledDecimal.roundedInteger(try Self.stored(text)) == integer, "\(text)")
        }
        #expect(ScaledDecimal.roundedInteger(ScaledDecimal.null) == 0)
        // every scale of the largest mantissa: an answer, never a trap
        for scale in 0...31 {
            let extreme = ScaledDecimal.maxMantissa << 6 | Int64(scale)
            let negative = -ScaledDecimal.maxMantissa << 6 | Int64(scale)
            #expect(ScaledDecimal.roundedInteger(extreme) == -ScaledDecimal.roundedInteger(negative))
        }
    }

    @Test func storedColumnsTakeTheirTypes() {
        #expect(InterchangeType(.nst) == .int64 && InterchangeType(.magNst) == .int64)
        #expect(InterchangeType(.mag) == .float64 && InterchangeType(.felt) == .float64)
        #expect(InterchangeType(.time) == .timestamp && InterchangeType(.updated) == .timestamp)
        #expect(InterchangeType(.place) == .utf8 && InterchangeType(.net) == .utf8 && InterchangeType(.id) == .utf8)
        #expect(ParquetColumn(.nst).physical == .int64 && ParquetColumn(.mag).physical == .double)
    }

    @Test func keysAndMetricsTakeTheirTypes() {
        let keys: [(String, InterchangeType)] = [
            ("year", .int64), ("hourofday", .int64), ("dayofweek", .int64), ("quarter", .int64),
            ("month", .timestamp), ("day", .timestamp), ("week", .timestamp), ("hour", .timestamp),
            ("time:6h", .timestamp), ("mag:0.5", .float64), ("depth:10", .float64),
            ("net", .utf8), ("region", .utf8), ("place", .utf8), ("magType", .utf8),
        ]
        for (text, type) in keys {
            let group = GroupBy(parsing: text)
            #expect(group.map(AggregateTable.keyType) == type, "\(text)")
            #expect(group.map { $0.isNumeric == (type == .int64 || type == .float64) } == true, "\(text)")
        }
        let metrics: [(String, InterchangeType)] = [
            ("count", .int64), ("count(mag)", .int64), ("count(distinct net)", .int64), ("count(time)", .int64),
            ("avg(mag)", .float64), ("sum(depth)", .float64), ("stddev(mag)", .float64), ("median(nst)", .float64),
            ("p90(mag)", .float64), ("min(time)", .timestamp), ("max(updated)", .timestamp),
            ("avg(time)", .timestamp), ("median(time)", .timestamp), ("p50(updated)", .timestamp),
        ]
        for (text, type) in metrics {
            #expect(Metric(parsing: text).map(AggregateTable.metricType) == type, "\(text)")
        }
    }

    @Test func yearsOfInstants() {
        #expect(AggregateTable.year(of: 0) == 1970)
        #expect(AggregateTable.year(of: -1) == 1969)
        #expect(AggregateTable.year(of: 946_684_800_000) == 2000)
        #expect(AggregateTable.year(of: 946_684_799_999) == 1999)
        #expect(AggregateTable.year(of: -62_167_219_200_000) == 0)
        _ = AggregateTable.year(of: Int64.max)
        _ = AggregateTable.year(of: Int64.min)
    }

    @Test func columnsOfAnotherLengthAreAnError() {
        let fields = [AggregateTable.Field(name: "count", values: .int64([1, 2])),
                      AggregateTable.Field(name: "net", values: .utf8(["us"]))]
        #expect(throws: QuakeError.self) { try AggregateTable(fields: fields, rowCount: 2) }
    }
}
