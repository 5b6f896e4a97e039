import QuakeFormat
import QuakeStore

/// A small table of typed columns, each its own Arrow or Parquet type (``InterchangeType``):
/// what `agg` writes as `--format arrow` (``ArrowStreamWriter/write(_:)``) or `--format parquet`
/// (``ParquetFileWriter/write(_:to:)``). A nil value is a null.
package struct AggregateTable: Sendable {
    /// A column's values, in its type.
    package enum Values: Sendable {
        case timestamp([Int64?])
        case int64([Int64?])
        case float64([Double?])
        case utf8([String?])

        package var type: InterchangeType {
            switch self {
            case .timestamp: return .timestamp
            case .int64: return .int64
            case .float64: return .float64
            case .utf8: return .utf8
            }
        }

        package var count: Int {
            switch self {
            case .timestamp(let values), .int64(let values): return values.count
            case .float64(let values): return values.count
            case .utf8(let values): return values.count
            }
        }

        /// Whether value `row` is null.
        package func isNull(_ row: Int) -> Bool {
            switch self {
            case .timestamp(let values), .int64(let values): return values[row] == nil
            case .float64(let values): return values[row] == nil
            case .utf8(let values): return values[row] == nil
            }
        }
    }

    /// A named column.
    package struct Field: Sendable {
        package let name: String
        package let values: Values

        package init(name: String, values: Values) {
            self.name = name
            self.values = values
        }
    }

    package let fields: [Field]
    /// Rows in every column.
    package let rowCount: Int

    /// A table of `fields`, which must all hold `rowCount` values.
    /// - Throws: `.invalidArgument` when a column holds another number of values.
    package init(fields: [Field], rowCount: Int) throws(QuakeError) {
        if let uneven = fields.first(where: { $0.values.count != rowCount }) {
            let detail = "\(rowCount) values long, as every column, not \(uneven.values.count)"
            throw .argument("column \(uneven.name)", detail)
        }
        self.fields = fields
        self.rowCount = rowCount
    }
}
