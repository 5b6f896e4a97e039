import QuakeFormat
import QuakeStore
/// How a column is stored in Parquet: its name, type (``InterchangeType``), repetition and
/// encoding.
package struct ParquetColumn {
    package enum Physical: Int32 { case int64 = 2, double = 5, byteArray = 6 }

    package let name: String
    package let type: InterchangeType
    /// Category columns are dictionary-encoded.
    package let dictionary: Bool
    package let required: Bool

    /// The physical type: INT64 for times and integers, DOUBLE, or BYTE_ARRAY for text.
    package var physical: Physical {
        switch type {
        case .timestamp, .int64: return .int64
        case .float64: return .double
        case .utf8: return .byteArray
        }
    }

    /// A stored column: categories dictionary-encoded, the required fields REQUIRED.
    package init(_ c: Column) {
        name = c.name
        type = InterchangeType(c)
        dictionary = c.kind == .category
        required = Column.required.contains(c)
    }

    /// A column of a typed table: OPTIONAL, plain-encoded.
    package init(name: String, type: InterchangeType) {
        self.name = name
        self.type = type
        dictionary = false
        required = false
    }

    /// The schema element (parquet.thrift `SchemaElement`).
    package func schemaElement(_ w: inout ThriftCompactWriter) {
        w.i32(1, physical.rawValue)
        w.i32(3, required ? 0 : 1)  // REQUIRED, OPTIONAL
        w.string(4, name)
        switch type {
        case .timestamp:
            w.i32(6, 9)  // converted type TIMESTAMP_MILLIS, for older readers
            w.structure(10) { logicalType in
                logicalType.structure(8) { timestamp in  // TIMESTAMP
                    timestamp.bool(1, true)  // isAdjustedToUTC
                    timestamp.structure(2) { unit in unit.structure(1) { _ in } }  // unit MILLIS
                }
            }
        case .utf8:
            w.i32(6, 0)  // converted type UTF8
            w.structure(10) { logicalType in logicalType.structure(1) { _ in } }  // STRING
        case .int64, .float64:
            break  // a plain INT64 is a signed 64-bit integer, a DOUBLE a double
        }
    }
}
