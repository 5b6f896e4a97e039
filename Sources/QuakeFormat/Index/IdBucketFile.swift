import QuakeSupport

/// A v4 id-index bucket file (`QKIDX004`), mapped: its entries in blocks of ``blockEntries``,
/// each block with its own checksum, behind a checked directory of the blocks' first keys. A
/// point read finds the block of a key by binary search and checks and decodes that block only,
/// so looking up a thousand ids reads a thousand blocks, not 64 whole buckets.
///
/// Layout: `[blocks][directory][u32 directory length][u64 directory checksum][magic]`. The
/// directory is `[u32 entries][u8 bits][u32 blocks]` then per block `[u64 first key][u32 offset]
/// [u32 length][u32 entries][u64 checksum]`. A block is three ``ForIntegerCodec`` chunks, each
/// after its `u32` length: keys, partition ordinals, hints.
package struct IdBucketFile {
    /// Entries a block holds (the last may hold fewer).
    package static let blockEntries = 256
    /// Bytes of one block's directory row.
    static let directoryRowSize = 28
    /// Bytes after the directory: its length, its checksum and the magic.
    static let trailerSize = 20

    /// One block's place in the file.
    package struct Block: Sendable {
        package let firstKey: UInt64
        let offset: Int
        let length: Int
        package let entries: Int
        let checksum: UInt64
    }

    /// One block's entries, decoded.
    package struct Entries: Sendable {
        package var keys: [UInt64]
        package var ordinals: [Int]
        package var hints: [UInt32]
    }

    /// The file's bytes (the mapping the caller keeps alive); nil when only its tail was read
    /// (``init(tail:fileSize:path:)``): its blocks are then read by the caller.
    private(set) var bytes: UnsafeRawBufferPointer?
    let path: String
    /// Entries in the file.
    package let count: Int
    /// Key bits (see ``IdHashes``).
    package let bits: Int
    package let blocks: [Block]

    /// Whether `bytes` end with the v4 magic.
    package static func isV4(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // SAFETY: reads the last 8 bytes only when there are at least trailerSize of them.
        bytes.count >= trailerSize && Array(bytes[(bytes.count - 8)...]) == IdHashes.magic
    }

    /// Checks the trailer and the directory of a v4 file's `bytes` (which must outlive this
    /// value); `path` names the file in errors.
    package init(_ bytes: UnsafeRawBufferPointer, path: String) throws(QuakeError) {
        try self.init(tail: bytes, fileSize: bytes.count, path: path)
        self.bytes = bytes
    }

    /// The length of the file's tail that holds its directory and trailer, read from the
    /// trailer at the end of `tail` (the file's last bytes, at least ``trailerSize``).
    package static func directoryTail(_ tail: UnsafeRawBufferPointer, fileSize: Int,
                                      path: String) throws(QuakeError) -> Int {
        guard isV4(tail) else { throw .corrupt(path, "not an id index v4 file") }
        var trailer = ByteReader(tail, at: tail.count - trailerSize)
        let directoryLength = Int(try trailer.u32())
        guard directoryLength >= 9, directoryLength <= fileSize - trailerSize else {
            throw .corrupt(path, "id index directory length \(directoryLength)")
        }
        return directoryLength + trailerSize
    }

    /// Checks the trailer and the directory in `tail`, the last bytes of a v4 file of
    /// `fileSize` bytes (at least its directory and trailer, ``directoryTail(_:fileSize:path:)``);
    /// the blocks are read with ``entries(ofBlock:raw:)``.
    package init(tail: UnsafeRawBufferPointer, fileSize: Int, path: String) throws(QuakeError) {
        bytes = nil
        self.path = path
        guard tail.count <= fileSize, tail.count >= IdBucketFile.trailerSize,
              try IdBucketFile.directoryTail(tail, fileSize: fileSize, path: path) <= tail.count else {
            throw .corrupt(path, "id index: its directory lies outside the bytes read")
        }
        var trailer = ByteReader(tail, at: tail.count - IdBucketFile.trailerSize)
        let directoryLength = Int(try trailer.u32())
        let directorySum = try trailer.u64()
        // positions in the file, and in `tail`, which ends where the file does
        let directoryEnd = fileSize - IdBucketFile.trailerSize
        let directoryStart = directoryEnd - directoryLength
        let tailStart = fileSize - tail.count
        // SAFETY: directoryTail checked directoryLength + trailerSize <= tail.count, so the
        // directory lies in `tail`.
        let directory = UnsafeRawBufferPointer(
            rebasing: tail[(directoryStart - tailStart)..<(directoryEnd - tailStart)])
        guard Checksum.hash(directory) == directorySum else { throw .corrupt(path, "id index directory checksum") }
        var reader = ByteReader(directory)
        count = Int(try reader.u32())
        bits = Int(try reader.u8())
        guard (1...IdHashes.maxBits).contains(bits) else { throw .corrupt(path, "id index: \(bits) key bits") }
        let blockCount = Int(try reader.u32())
        guard blockCount == (count + IdBucketFile.blockEntries - 1) / IdBucketFile.blockEntries,
              reader.remaining == blockCount * IdBucketFile.directoryRowSize else {
            throw .corrupt(path, "id index: \(blockCount) blocks for \(count) entries")
        }
        blocks = try IdBucketFile.readBlocks(&reader, blockCount, count: count, dataEnd: directoryStart,
                                             bits: bits, path: path)
    }

    /// The directory's block rows, each checked to lie in order before `dataEnd` and to hold
    /// ``blockEntries`` entries (the last one the rest).
    private static func readBlocks(_ reader: inout ByteReader, _ blockCount: Int, count: Int, dataEnd: Int,
                                   bits: Int, path: String) throws(QuakeError) -> [Block] {
        var blocks: [Block] = []
        blocks.reserveCapacity(blockCount)
        var expectedOffset = 0
        for blockIndex in 0..<blockCount {
            let firstKey = try reader.u64()
            let offset = Int(try reader.u32())
            let length = Int(try reader.u32())
            let entries = Int(try reader.u32())
            let checksum = try reader.u64()
            let expectedEntries = Swift.min(blockEntries, count - blockIndex * blockEntries)
            guard offset == expectedOffset, length <= dataEnd - offset, entries == expectedEntries,
                  firstKey < UInt64(1) << UInt64(bits),
                  blocks.last.map({ $0.firstKey <= firstKey }) ?? true else {
                throw .corrupt(path, "id index: block \(blockIndex) of the directory")
            }
            expectedOffset = offset + length
            blocks.append(Block(firstKey: firstKey, offset: offset, length: length, entries: entries,
                                checksum: checksum))
        }
        guard expectedOffset == dataEnd else {
            throw .corrupt(path, "id index: \(dataEnd - expectedOffset) stray bytes")
        }
        return blocks
    }

    /// The blocks that may hold entries of `key`: from the last block starting below it (whose
    /// tail may hold it) to the last block starting at or below it.
    /// - Complexity: O(log blocks).
    package func blockRange(of key: UInt64) -> ClosedRange<Int>? {
        guard !blocks.isEmpty else { return nil }
        // the first block whose first key is at or above `key`, and the first above it
        var low = 0
        var high = blocks.count
        while low < high {
            let middle = (low + high) / 2
            if blocks[middle].firstKey < key { low = middle + 1 } else { high = middle }
        }
        let firstNotBelow = low
        high = blocks.count
        while low < high {
            let middle = (low + high) / 2
            if blocks[middle].firstKey <= key { low = middle + 1 } else { high = middle }
        }
        let firstAbove = low
        let first = Swift.max(firstNotBelow - 1, 0)
        let last = firstAbove - 1
        return last >= first ? first...last : nil
    }

    /// Where block `index` lies in the file: its offset and length.
    package func extent(ofBlock index: Int) -> (offset: Int, length: Int) {
        (blocks[index].offset, blocks[index].length)
    }

    /// Block `index`, its checksum checked, decoded and checked for order.
    package func entries(ofBlock index: Int) throws(QuakeError) -> Entries {
        let block = blocks[index]
        guard let bytes else { throw .corrupt(path, "id index block \(index): the file was not read whole") }
        // SAFETY: init checked that every block lies before the directory, inside `bytes`.
        return try entries(ofBlock: index,
                           raw: UnsafeRawBufferPointer(rebasing: bytes[block.offset..<(block.offset + block.length)]))
    }

    /// Block `index` from its bytes `raw` (read by the caller at ``extent(ofBlock:)``), its
    /// checksum checked, decoded and checked for order.
    package func entries(ofBlock index: Int, raw: UnsafeRawBufferPointer) throws(QuakeError) -> Entries {
        let block = blocks[index]
        guard raw.count == block.length, Checksum.hash(raw) == block.checksum else {
            throw .corrupt(path, "id index block \(index): checksum")
        }
        var reader = ByteReader(raw)
        var columns: [[Int64]] = []
        for column in 0..<3 {
            let length = Int(try reader.u32())
            try reader.need(length)
            // SAFETY: need(length) checked the slice lies in `raw`.
            let chunk = UnsafeRawBufferPointer(rebasing: raw[reader.pos..<(reader.pos + length)])
            reader.pos += length
            guard case .ints(let values) = try ForIntegerCodec.decode(chunk, count: block.entries,
                                                                      rows: 0..<block.entries, as: .stored),
                  values.count == block.entries else {
                throw .corrupt(path, "id index block \(index): column \(column)")
            }
            columns.append(values)
        }
        guard reader.remaining == 0 else { throw .corrupt(path, "id index block \(index): stray bytes") }
        let decoded = try IdBucketFile.checkedEntries(columns, bits: bits)
        guard let decoded, decoded.keys.first == block.firstKey else {
            throw .corrupt(path, "id index block \(index): entries out of order or range")
        }
        return decoded
    }

    /// The three decoded columns as entries, or nil when a key is past `bits` bits, a value out
    /// of range, or the entries out of (key, ordinal, hint) order.
    private static func checkedEntries(_ columns: [[Int64]], bits: Int) throws(QuakeError) -> Entries? {
        let limit = UInt64(1) << UInt64(bits)
        let keys = columns[0]
        let ordinals = columns[1]
        let hints = columns[2]
        let count = keys.count
        guard ordinals.count == count, hints.count == count else { return nil }
        // one pass of plain comparisons over the block (an append per entry cost a lookup 20 %)
        var sound = true
        for index in 0..<count {
            let key = UInt64(bitPattern: keys[index])
            let ordinal = ordinals[index]
            let hint = hints[index]
            sound = sound && key < limit && ordinal > Int64(Int32.min) && ordinal < Int64(Int32.max)
                && hint >= 0 && hint <= Int64(UInt32.max)
            guard index > 0 else { continue }
            let previousKey = UInt64(bitPattern: keys[index - 1])
            let ordered = previousKey != key ? previousKey < key
                : ordinals[index - 1] != ordinal ? ordinals[index - 1] < ordinal
                : hints[index - 1] <= hint
            sound = sound && ordered
        }
        guard sound else { return nil }
        return Entries(keys: keys.map { UInt64(bitPattern: $0) }, ordinals: ordinals.map { Int($0) },
                       hints: hints.map { UInt32(truncatingIfNeeded: $0) })
    }

    /// The bytes of a v4 file of `hashes` (which must be sorted).
    package static func encode(_ hashes: IdHashes) -> [UInt8] {
        var data: [UInt8] = []
        var directory = ByteWriter()
        let blockCount = (hashes.count + blockEntries - 1) / blockEntries
        directory.u32(UInt32(hashes.count))
        directory.u8(UInt8(hashes.bits))
        directory.u32(UInt32(blockCount))
        for blockIndex in 0..<blockCount {
            let rows = (blockIndex * blockEntries)..<Swift.min((blockIndex + 1) * blockEntries, hashes.count)
            let offset = data.count
            var block = ByteWriter()
            let columns: [[Int64]] = [hashes.keys[rows].map { Int64(bitPattern: $0) },
                                      hashes.ordinals[rows].map { Int64($0) },
                                      hashes.hints[rows].map { Int64($0) }]
            for column in columns {
                var chunk: [UInt8] = []
                _ = ForIntegerCodec.encode(column, rows: 0..<column.count, into: &chunk)
                block.u32(UInt32(chunk.count))
                block.bytes.append(contentsOf: chunk)
            }
            data.append(contentsOf: block.bytes)
            directory.u64(hashes.keys[rows.lowerBound])
            directory.u32(UInt32(offset))
            directory.u32(UInt32(block.bytes.count))
            directory.u32(UInt32(rows.count))
            directory.u64(Checksum.hash(block.bytes))
        }
        var out = ByteWriter()
        out.bytes = data
        out.bytes.append(contentsOf: directory.bytes)
        out.u32(UInt32(directory.bytes.count))
        out.u64(Checksum.hash(directory.bytes))
        out.bytes.append(contentsOf: IdHashes.magic)
        return out.bytes
    }
}
