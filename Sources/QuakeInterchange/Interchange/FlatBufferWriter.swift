import QuakeFormat
import QuakeStore
/// A small FlatBuffers encoder for the Arrow IPC metadata (Message, Schema, Field,
/// RecordBatch). It lays the buffer out front to back: a table's vtable, then the table, then
/// the objects its offsets point to, so every unsigned offset points forward as the format
/// requires. Tables start 8-aligned and their fields are aligned to their size, which keeps
/// the verifier's alignment checks happy.
package struct FlatBufferWriter {
    /// A value in a table slot, or an object an offset points to.
    package indirect enum Value {
        case u8(UInt8)
        case bool(Bool)
        case i16(Int16)
        case i32(Int32)
        case i64(Int64)
        /// A table; slot `k` is field id `k`, nil when absent.
        case table([Value?])
        case string(String)
        /// A vector of tables.
        case tables([Value])
        /// A vector of structs given as raw little-endian bytes, 8-aligned.
        case structs([UInt8], count: Int)

        package var inlineSize: Int {
            switch self {
            case .u8, .bool: return 1
            case .i16: return 2
            case .i32: return 4
            case .i64: return 8
            case .table, .string, .tables, .structs: return 4
            }
        }
    }

    package private(set) var bytes: [UInt8] = []

    /// The encoded buffer of `root`, padded to a multiple of 8 bytes.
    package static func encode(_ root: Value) -> [UInt8] {
        var writer = FlatBufferWriter()
        writer.bytes = [0, 0, 0, 0]
        let at = writer.place(root)
        writer.patch(0, UInt32(at))
        writer.pad(to: 8)
        return writer.bytes
    }

    private mutating func pad(to n: Int) { while bytes.count % n != 0 { bytes.append(0) } }

    private mutating func put<T: FixedWidthInteger>(_ v: T) {
        // SAFETY: the closure copies the bytes of a local value; the pointer does not escape it.
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func patch(_ at: Int, _ v: UInt32) {
        for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
    }

    /// Writes `v` (a table, string or vector) and returns where it starts.
    private mutating func place(_ v: Value) -> Int {
        switch v {
        case .table(let fields): return placeTable(fields)
        case .string(let string):
            pad(to: 4)
            let at = bytes.count
            put(UInt32(string.utf8.count))
            bytes.append(contentsOf: string.utf8)
            bytes.append(0)
            return at
        case .tables(let items):
            pad(to: 4)
            let at = bytes.count
            put(UInt32(items.count))
            let slots = bytes.count
            for _ in items { put(UInt32(0)) }
            for (k, item) in items.enumerated() {
                let child = place(item)
                patch(slots + 4 * k, UInt32(child - (slots + 4 * k)))
            }
            return at
        case .structs(let raw, let count):
            while (bytes.count + 4) % 8 != 0 { bytes.append(0) }
            let at = bytes.count
            put(UInt32(count))
            bytes.append(contentsOf: raw)
            return at
        case .u8, .bool, .i16, .i32, .i64:
            return bytes.count  // scalars live inline; never placed on their own
        }
    }

    private mutating func placeTable(_ fields: [Value?]) -> Int {
        // inline layout: the vtable offset, then each present field aligned to its size
        var offsets = [Int](repeating: 0, count: fields.count)
        var size = 4
        for (k, field) in fields.enumerated() {
            guard let field else { continue }
            let fieldSize = field.inlineSize
            size = (size + fieldSize - 1) / fieldSize * fieldSize
            offsets[k] = size
            size += fieldSize
        }
        pad(to: 2)
        let vtable = bytes.count
        put(UInt16(4 + 2 * fields.count))
        put(UInt16(size))
        for o in offsets { put(UInt16(o)) }
        pad(to: 8)
        let table = bytes.count
        put(Int32(table - vtable))
        bytes.append(contentsOf: [UInt8](repeating: 0, count: size - 4))
        var children: [(Int, Value)] = []
        for (k, field) in fields.enumerated() {
            guard let field else { continue }
            let at = table + offsets[k]
            switch field {
            case .u8(let value):
                bytes[at] = value
            case .bool(let value):
                bytes[at] = value ? 1 : 0
            case .i16(let value):
                bytes[at] = UInt8(truncatingIfNeeded: value)
                bytes[at + 1] = UInt8(truncatingIfNeeded: value >> 8)
            case .i32(let value):
                for byte in 0..<4 { bytes[at + byte] = UInt8(truncatingIfNeeded: value >> (8 * Int32(byte))) }
            case .i64(let value):
                for byte in 0..<8 { bytes[at + byte] = UInt8(truncatingIfNeeded: value >> (8 * Int64(byte))) }
            default:
                children.append((at, field))
            }
        }
        for (at, child) in children {
            let childStart = place(child)
            patch(at, UInt32(childStart - at))
        }
        return table
    }
}
