/// Joining decoded row ranges of one column (the frames of a ``FramedCodec`` chunk).
extension ColumnVector {
    /// The rows of `parts` end to end; every part must have the same form.
    static func concatenating(_ parts: [ColumnVector]) throws(StoreError) -> ColumnVector {
        guard let head = parts.first else { throw .corrupt("no frames to join") }
        if parts.count == 1 { return head }
        switch head {
        case .ints:
            var out: [Int64] = []
            for p in parts { guard case .ints(let v) = p else { throw mixed }; out.append(contentsOf: v) }
            return .ints(out)
        case .doubles:
            var out: [Double] = []
            for p in parts { guard case .doubles(let v) = p else { throw mixed }; out.append(contentsOf: v) }
            return .doubles(out)
        case .text:
            var out = ByteArena()
            for p in parts {
                guard case .text(let a) = p else { throw mixed }
                let base = out.bytes.count
                out.bytes.append(contentsOf: a.bytes)
                out.ends.append(contentsOf: a.ends.lazy.map { $0 + base })
            }
            return .text(out)
        case .place:
            var blocks: [PlaceBlock] = []
            for p in parts { guard case .place(let b) = p else { throw mixed }; blocks.append(b) }
            return .place(PlaceBlock.joining(blocks))
        case .category:
            throw .corrupt("category chunks are not framed")
        }
    }

    private static var mixed: StoreError { .corrupt("frames of one chunk decode to different forms") }
}

extension PlaceBlock {
    /// Rows of `blocks` end to end, their locality dictionaries merged into one.
    static func joining(_ blocks: [PlaceBlock]) -> PlaceBlock {
        var dict = ByteArena()
        var codeOf: [[UInt8]: UInt32] = [:]
        var out = PlaceBlock(localities: ByteArena(), locality: [], direction: [], distance: [])
        for b in blocks {
            var remap = [UInt32](repeating: 0, count: b.localities.count + 1)
            for k in 0..<b.localities.count {
                let bytes = Array(b.localities.bytes[b.localities.range(k)])
                if let c = codeOf[bytes] { remap[k + 1] = c; continue }
                dict.append(bytes)
                let c = UInt32(dict.count)
                codeOf[bytes] = c
                remap[k + 1] = c
            }
            out.locality.append(contentsOf: b.locality.lazy.map { Int($0) < remap.count ? remap[Int($0)] : 0 })
            out.direction.append(contentsOf: b.direction)
            out.distance.append(contentsOf: b.distance)
        }
        out.localities = dict
        return out
    }
}
