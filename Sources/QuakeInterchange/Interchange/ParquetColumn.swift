import QuakeFormat
import QuakeStore
/// How a quakes column is stored in Parquet: its physical type, logical type and repetition.
package struct ParquetColumn {
    package enum Physical: Int32 { case int64 = 2, double = 5, byteArray = 6 }

    package let column: Column
    package let physical: Physical
    /// Category columns are dictionary-encoded.
    package let dictionary: Bool
    package let required: Bool

    package init(_ c: Column) {
        column = c
        switch c.kind {
        case .timestamp: physical = .int64
        case .decimal: physical = .double
        default: physical = .byteArray
        }
        dictionary = c.kind == .category
        required = Column.required.contains(c)
    }

    /// The schema element (parquet.thrift `SchemaElement`).
    package func schemaElement(_ w: inout ThriftCompactWriter) {
        w.i32(1, physical.rawValue)
        w.i32(3, required ? 0 : 1)  // REQUIRED, OPTIONAL
        w.string(4, column.name)
        switch physical {
        case .int64:
            w.i32(6, 9)  // converted type TIMESTAMP_MILLIS, for older readers
            w.structure(10) { l in
                l.structure(8) { t in  // TIMESTAMP
                    t.bool(1, true)  // isAdjustedToUTC
                    t.structure(2) { u in u.structure(1) { _ in } }  // unit MILLIS
                }
            }
        case .byteArray:
            w.i32(6, 0)  // converted type UTF8
            w.structure(10) { l in l.structure(1) { _ in } }  // STRING
        case .double:
            break
        }
    }
}
