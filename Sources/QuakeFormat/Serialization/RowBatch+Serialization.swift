extension RowBatch {
    /// A flat binary image of the batch, for spill files.
    package func serialized() -> [UInt8] {
        var writer = ByteWriter()
        writer.u32(UInt32(count))
        for c in Column.allCases {
            if RowBatch.isInt(c) { writer.raw(ints[c.rawValue]) } else {
                let arena = text[c.rawValue]
                writer.raw(arena.ends.map { UInt32($0) })
                writer.blob(arena.bytes)
            }
        }
        writer.raw(present)
        writer.raw(seq)
        writer.u32(UInt32(origins.count))
        for (row, list) in origins.sorted(by: { $0.key < $1.key }) {
            writer.u32(UInt32(row))
            writer.u8(UInt8(list.count))
            for origin in list {
                writer.u64(origin.mask)
                writer.i64(origin.updated)
            }
        }
        return writer.bytes
    }

    package init(serialized p: UnsafeRawBufferPointer) throws(QuakeError) {
        self.init()
        // SAFETY: every read of `p` goes through ByteReader, which throws before reading past p.count.
        var reader = ByteReader(p)
        let rowCount = Int(try reader.u32())
        count = rowCount
        for c in Column.allCases {
            if RowBatch.isInt(c) { ints[c.rawValue] = try reader.raw(rowCount, as: Int64.self) } else {
                var arena = ByteArena()
                arena.ends = try reader.raw(rowCount, as: UInt32.self).map { Int($0) }
                arena.bytes = try reader.blob()
                // the ends must ascend within the bytes: text slices are cut from them unchecked
                var last = 0
                for e in arena.ends {
                    guard e >= last else { throw .corrupt("a spilled batch's text ends do not ascend") }
                    last = e
                }
                guard last <= arena.bytes.count else { throw .corrupt("a spilled batch's text runs past its bytes") }
                text[c.rawValue] = arena
            }
        }
        present = try reader.raw(rowCount, as: UInt64.self)
        seq = try reader.raw(rowCount, as: Int64.self)
        let originRows = Int(try reader.u32())
        for _ in 0..<originRows {
            let row = Int(try reader.u32())
            guard row < rowCount else {
                throw .corrupt("a spilled batch's field origins name row \(row) of \(rowCount)")
            }
            let groups = Int(try reader.u8())
            var list: [FieldOrigin] = []
            for _ in 0..<groups {
                let mask = try reader.u64()
                list.append(FieldOrigin(mask: mask, updated: try reader.i64()))
            }
            origins[row] = list
        }
    }
}
