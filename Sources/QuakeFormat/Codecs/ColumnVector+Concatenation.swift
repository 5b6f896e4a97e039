/// Joining decoded row ranges of one column (the frames of a ``FramedCodec`` chunk).
extension ColumnVector {
    /// The rows of `parts` end to end; every part must have the same form.
    package static func concatenating(_ parts: [ColumnVector]) throws(QuakeError) -> ColumnVector {
        guard let head = parts.first else { throw .corrupt("no frames to join") }
        if parts.count == 1 { return head }
        switch head {
        case .ints:
            var out: [Int64] = []
            for p in parts {
                guard case .ints(let values) = p else { throw mixed }
                out.append(contentsOf: values)
            }
            return .ints(out)
        case .doubles:
            var out: [Double] = []
            for p in parts {
                guard case .doubles(let values) = p else { throw mixed }
                out.append(contentsOf: values)
            }
            return .doubles(out)
        case .text:
            var out = ByteArena()
            for p in parts {
                guard case .text(let arena) = p else { throw mixed }
                let base = out.bytes.count
                out.bytes.append(contentsOf: arena.bytes)
                out.ends.append(contentsOf: arena.ends.lazy.map { $0 + base })
            }
            return .text(out)
        case .place, .category:
            throw .corrupt("place and category chunks are not framed")
        }
    }

    private static var mixed: QuakeError { .corrupt("frames of one chunk decode to different forms") }
}
