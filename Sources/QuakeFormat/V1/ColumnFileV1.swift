/// One block of a v1 column file: location, zone map and checksum (read only to migrate).
package struct BlockInfoV1: Sendable, Equatable {
    package var offset: UInt64
    package var compressedLength: UInt32
    package var rawLength: UInt32
    package var rows: UInt32
    package var nulls: UInt32
    package var min: Int64
    package var max: Int64
    package var checksum: UInt64
    package static let size = 48
}

/// Column file layout: `[zstd frame per block][footer: BlockInfo * n][trailer]`.
/// Trailer: block count u32, column kind u8, version u8, 2 pad bytes, footer checksum u64,
/// magic `QKCOL001`. Every block carries a checksum of its compressed bytes, and each zstd
/// frame its own content checksum.
package enum ColumnFileV1 {
    package static let magic: [UInt8] = Array("QKCOL001".utf8)
    package static let trailerSize = 24
    package static let version: UInt8 = 1

    /// Reads and checks the footer of a mapped column file.
    package static func footer(_ f: MappedFile, column: Column) throws(QuakeError) -> [BlockInfoV1] {
        // SAFETY: `fileBytes` is read only within this call while the caller holds `f`; fileBytes.count >= 24 is
        // checked before
        // the trailer reads, and footerStart >= 0 before the footer slice.
        let fileBytes = f.bytes
        guard fileBytes.count >= trailerSize else { throw .corrupt(f.path, "file too short for a column file") }
        var reader = ByteReader(fileBytes, at: fileBytes.count - trailerSize)
        let count = Int(try reader.u32())
        let kind = try reader.u8()
        let ver = try reader.u8()
        reader.pos += 2
        let sum = try reader.u64()
        guard Array(fileBytes[(fileBytes.count - 8)...]) == magic else { throw .corrupt(f.path, "bad trailer magic") }
        guard ver == version else { throw .unsupported("\(f.path): column file version \(ver)") }
        guard Int(kind) == column.rawValue else {
            throw .corrupt(f.path, "trailer names column \(kind), expected \(column)")
        }
        let footerStart = fileBytes.count - trailerSize - count * BlockInfoV1.size
        guard count >= 1, footerStart >= 0 else { throw .corrupt(f.path, "block count \(count)") }
        let footerBytes = UnsafeRawBufferPointer(rebasing: fileBytes[footerStart..<(fileBytes.count - trailerSize)])
        guard Checksum.hash(footerBytes) == sum else {
            throw .corrupt(f.path, "footer checksum mismatch")
        }
        reader = ByteReader(fileBytes, at: footerStart)
        var blocks: [BlockInfoV1] = []
        for k in 0..<count {
            let info = BlockInfoV1(offset: try reader.u64(), compressedLength: try reader.u32(),
                                   rawLength: try reader.u32(), rows: try reader.u32(),
                                   nulls: try reader.u32(), min: try reader.i64(), max: try reader.i64(),
                                   checksum: try reader.u64())
            guard info.offset <= UInt64(footerStart),
                  UInt64(info.compressedLength) <= UInt64(footerStart) - info.offset else {
                throw .corrupt("\(f.path) block \(k): extends past the data area")
            }
            blocks.append(info)
        }
        return blocks
    }

    /// Decompresses block `k`. Queries rely on the zstd frame's own content checksum (checked
    /// by every decompression); `verify` also checks the footer's checksum of the compressed bytes.
    package static func payload(_ f: MappedFile, _ info: BlockInfoV1, index k: Int,
                                checkFooterSum: Bool = false) throws(QuakeError) -> [UInt8] {
        let start = Int(info.offset)
        assert(start >= 0 && start + Int(info.compressedLength) <= f.bytes.count, "block \(k) outside its file")
        // SAFETY: footer(f) checked offset + compressedLength <= footerStart for each block it returned, and
        // callers pass a block of that footer, so the frame lies in the mapping `f` keeps alive.
        let frame = UnsafeRawBufferPointer(rebasing: f.bytes[start..<(start + Int(info.compressedLength))])
        if checkFooterSum, Checksum.hash(frame) != info.checksum {
            throw .corrupt("\(f.path) block \(k): checksum mismatch")
        }
        do {
            return try Zstd.decompress(frame, expectedSize: Int(info.rawLength))
        } catch {
            throw .corrupt("\(f.path) block \(k): \(error)")
        }
    }
}
