import QuakeFormat
import QuakeStore
/// The Thrift compact protocol, write side only: what Parquet's footer and page headers need
/// (structs, i32, i64, binary, bool and lists), following the Thrift compact protocol
/// specification. Field ids must rise within a struct, as the writers here always do.
package struct ThriftCompactWriter {
    package private(set) var bytes: [UInt8] = []
    private var lastField: [Int16] = [0]

    package enum FieldType: UInt8 {
        case boolTrue = 1, boolFalse = 2, byte = 3, i16 = 4, i32 = 5, i64 = 6, double = 7, binary = 8
        case list = 9, set = 10, map = 11, structure = 12
    }

    package mutating func varint(_ v: UInt64) {
        var rest = v
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    package mutating func zigzag(_ v: Int64) { varint(UInt64(bitPattern: (v << 1) ^ (v >> 63))) }

    private mutating func fieldHeader(_ id: Int16, _ type: FieldType) {
        let last = lastField[lastField.count - 1]
        let delta = id - last
        if delta > 0 && delta <= 15 {
            bytes.append(UInt8(delta) << 4 | type.rawValue)
        } else {
            bytes.append(type.rawValue)
            zigzag(Int64(id))
        }
        lastField[lastField.count - 1] = id
    }

    package mutating func i32(_ id: Int16, _ v: Int32) {
        fieldHeader(id, .i32)
        zigzag(Int64(v))
    }

    package mutating func i64(_ id: Int16, _ v: Int64) {
        fieldHeader(id, .i64)
        zigzag(v)
    }

    package mutating func bool(_ id: Int16, _ v: Bool) { fieldHeader(id, v ? .boolTrue : .boolFalse) }

    package mutating func binary(_ id: Int16, _ v: [UInt8]) {
        fieldHeader(id, .binary)
        varint(UInt64(v.count))
        bytes.append(contentsOf: v)
    }

    package mutating func string(_ id: Int16, _ v: String) { binary(id, Array(v.utf8)) }

    /// A struct field: `body` writes its fields.
    package mutating func structure(_ id: Int16, _ body: (inout ThriftCompactWriter) -> Void) {
        fieldHeader(id, .structure)
        beginStruct()
        body(&self)
        endStruct()
    }

    package mutating func beginStruct() { lastField.append(0) }

    package mutating func endStruct() {
        bytes.append(0)  // stop field
        lastField.removeLast()
    }

    private mutating func listHeader(_ id: Int16, _ count: Int, _ element: FieldType) {
        fieldHeader(id, .list)
        if count < 15 {
            bytes.append(UInt8(count) << 4 | element.rawValue)
        } else {
            bytes.append(0xF0 | element.rawValue)
            varint(UInt64(count))
        }
    }

    package mutating func list(_ id: Int16, i32 values: [Int32]) {
        listHeader(id, values.count, .i32)
        for v in values { zigzag(Int64(v)) }
    }

    package mutating func list(_ id: Int16, strings values: [String]) {
        listHeader(id, values.count, .binary)
        for v in values {
            varint(UInt64(v.utf8.count))
            bytes.append(contentsOf: v.utf8)
        }
    }

    /// A list of structs, `body` writing the fields of element `k`.
    package mutating func list(_ id: Int16, structs count: Int, _ body: (inout ThriftCompactWriter, Int) -> Void) {
        listHeader(id, count, .structure)
        for k in 0..<count {
            beginStruct()
            body(&self, k)
            endStruct()
        }
    }
}
