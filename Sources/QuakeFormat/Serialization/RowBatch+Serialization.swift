extension RowBatch {
    /// A flat binary image of the batch, for spill files.
    package func serialized() -> [UInt8] {
        var w = ByteWriter()
        w.u32(UInt32(count))
        for c in Column.allCases {
            if RowBatch.isInt(c) { w.raw(ints[c.rawValue]) } else {
                let a = text[c.rawValue]
                w.raw(a.ends.map { UInt32($0) })
                w.blob(a.bytes)
            }
        }
        w.raw(present)
        w.raw(seq)
        w.u32(UInt32(origins.count))
        for (row, list) in origins.sorted(by: { $0.key < $1.key }) {
            w.u32(UInt32(row))
            w.u8(UInt8(list.count))
            for origin in list {
                w.u64(origin.mask)
                w.i64(origin.updated)
            }
        }
        return w.bytes
    }

    package init(serialized p: UnsafeRawBufferPointer) throws(QuakeError) {
        self.init()
        // SAFETY: every read of `p` goes through ByteReader, which throws before reading past p.count.
        var r = ByteReader(p)
        let n = Int(try r.u32())
        count = n
        for c in Column.allCases {
            if RowBatch.isInt(c) { ints[c.rawValue] = try r.raw(n, as: Int64.self) } else {
                var a = ByteArena()
                a.ends = try r.raw(n, as: UInt32.self).map { Int($0) }
                a.bytes = try r.blob()
                // the ends must ascend within the bytes: text slices are cut from them unchecked
                var last = 0
                for e in a.ends {
                    guard e >= last else { throw .corrupt("a spilled batch's text ends do not ascend") }
                    last = e
                }
                guard last <= a.bytes.count else { throw .corrupt("a spilled batch's text runs past its bytes") }
                text[c.rawValue] = a
            }
        }
        present = try r.raw(n, as: UInt64.self)
        seq = try r.raw(n, as: Int64.self)
        let originRows = Int(try r.u32())
        for _ in 0..<originRows {
            let row = Int(try r.u32())
            guard row < n else { throw .corrupt("a spilled batch's field origins name row \(row) of \(n)") }
            let groups = Int(try r.u8())
            var list: [FieldOrigin] = []
            for _ in 0..<groups {
                let mask = try r.u64()
                list.append(FieldOrigin(mask: mask, updated: try r.i64()))
            }
            origins[row] = list
        }
    }
}
