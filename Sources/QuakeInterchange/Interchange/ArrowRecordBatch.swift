import QuakeFormat
import QuakeStore

/// The parts of one Arrow RecordBatch message as its columns are added: the field nodes
/// (length, null count), the buffer descriptors (offset, length) and the body, each buffer
/// padded to 8 bytes.
package struct ArrowRecordBatch {
    package private(set) var body: [UInt8] = []
    private var nodes: [UInt8] = []
    private var buffers: [UInt8] = []
    private var nodeCount = 0
    private var bufferCount = 0

    package init() {}

    /// Adds a column's field node.
    package mutating func addNode(length: Int, nulls: Int) {
        ParquetChunkEncoder.appendUInt64(UInt64(length), &nodes)
        ParquetChunkEncoder.appendUInt64(UInt64(nulls), &nodes)
        nodeCount += 1
    }

    /// Adds a buffer (validity bitmap, offsets or values) to the body.
    package mutating func addBuffer(_ bytes: [UInt8]) {
        ParquetChunkEncoder.appendUInt64(UInt64(body.count), &buffers)
        ParquetChunkEncoder.appendUInt64(UInt64(bytes.count), &buffers)
        body.append(contentsOf: bytes)
        while body.count % 8 != 0 { body.append(0) }
        bufferCount += 1
    }

    /// The RecordBatch table of `rows` rows.
    package func header(rows: Int) -> FlatBufferWriter.Value {
        .table([.i64(Int64(rows)), .structs(nodes, count: nodeCount), .structs(buffers, count: bufferCount)])
    }
}
