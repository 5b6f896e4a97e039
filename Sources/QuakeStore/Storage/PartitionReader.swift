import Foundation

/// Read access to one partition's column files, mapped lazily, decoded block by block.
public final class PartitionReader: @unchecked Sendable {
    public let entry: PartitionEntry
    let path: String
    private var files: [MappedFile?] = Array(repeating: nil, count: Column.count)
    private var footers: [[BlockInfo]?] = Array(repeating: nil, count: Column.count)
    /// Guards the lazily filled caches: a partition may be read by both scan threads.
    private let lock = NSLock()

    init(storePath: String, entry: PartitionEntry) {
        self.entry = entry
        self.path = storePath + "/partitions/" + entry.dir
    }

    func file(_ c: Column) throws(StoreError) -> MappedFile {
        lock.lock()
        defer { lock.unlock() }
        if let f = files[c.rawValue] { return f }
        let f = try MappedFile(path: "\(path)/\(c.name).col")
        files[c.rawValue] = f
        return f
    }

    /// The zone maps of column `c`.
    public func blocks(_ c: Column) throws(StoreError) -> [BlockInfo] {
        lock.lock()
        let cached = footers[c.rawValue]
        lock.unlock()
        if let cached { return cached }
        let b = try ColumnFile.footer(try file(c), column: c)
        let total = b.reduce(0) { $0 + Int($1.rows) }
        guard total == entry.rows else { throw .corrupt("\(path)/\(c.name).col: holds \(total) rows, manifest says \(entry.rows)") }
        lock.lock()
        footers[c.rawValue] = b
        lock.unlock()
        return b
    }

    /// Set by `verify`: also check each block's footer checksum.
    var checkBlockSums = false

    func payload(_ c: Column, block k: Int) throws(StoreError) -> [UInt8] {
        let b = try blocks(c)
        return try ColumnFile.payload(try file(c), b[k], index: k, checkFooterSum: checkBlockSums)
    }

    private func decode<T>(_ c: Column, _ k: Int, _ body: (UnsafeRawBufferPointer, Int) throws(StoreError) -> T) throws(StoreError) -> T {
        let rows = Int(try blocks(c)[k].rows)
        let p = try payload(c, block: k)
        let r = p.withUnsafeBytes { raw in Result { () throws(StoreError) -> T in try body(raw, rows) } }
        do { return try r.get() } catch { throw .corrupt("\(path)/\(c.name).col block \(k): \(error)") }
    }

    /// Raw `Int64` values of a timestamp or decimal column block.
    func ints(_ c: Column, block k: Int) throws(StoreError) -> [Int64] {
        try decode(c, k) { (p, n) throws(StoreError) in try IntegerCodec.decode(p, rows: n) }
    }

    /// A decimal column block as doubles (NaN for null).
    func doubles(_ c: Column, block k: Int) throws(StoreError) -> [Double] {
        try decode(c, k) { (p, n) throws(StoreError) in try IntegerCodec.decodeDoubles(p, rows: n) }
    }

    func category(_ c: Column, block k: Int) throws(StoreError) -> CategoryBlock {
        try decode(c, k) { (p, n) throws(StoreError) in try CategoryCodec.decode(p, rows: n) }
    }

    func text(_ c: Column, block k: Int) throws(StoreError) -> ByteArena {
        try decode(c, k) { (p, n) throws(StoreError) in try TextCodec.decode(p, rows: n) }
    }

    func place(block k: Int) throws(StoreError) -> PlaceBlock {
        try decode(.place, k) { (p, n) throws(StoreError) in try PlaceCodec.decode(p, rows: n) }
    }

    /// A column block as strings in a ``ByteArena`` (category, text or place columns).
    func arena(_ c: Column, block k: Int) throws(StoreError) -> ByteArena {
        switch c.kind {
        case .category: return try category(c, block: k).arena()
        case .text: return try text(c, block: k)
        case .place: return try place(block: k).arena()
        default: preconditionFailure("\(c) is not a string column")
        }
    }

    /// Every row of the partition, all columns (stored rows: every field present, oldest seq).
    func readAll() throws(StoreError) -> RowBatch {
        var batch = RowBatch()
        for c in Column.allCases {
            let n = try blocks(c).count
            for k in 0..<n {
                if RowBatch.isInt(c) { batch.ints[c.rawValue].append(contentsOf: try ints(c, block: k)) } else {
                    let a = try arena(c, block: k)
                    let base = batch.text[c.rawValue].bytes.count
                    batch.text[c.rawValue].bytes.append(contentsOf: a.bytes)
                    batch.text[c.rawValue].ends.append(contentsOf: a.ends.map { $0 + base })
                }
            }
        }
        batch.count = entry.rows
        batch.present = Array(repeating: Column.allMask, count: entry.rows)
        batch.seq = Array(repeating: Int64.min, count: entry.rows)
        return batch
    }
}
