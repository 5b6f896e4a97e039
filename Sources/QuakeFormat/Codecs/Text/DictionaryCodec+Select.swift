/// `oneOf` on a dictionary-coded column, on its packed codes: the wanted values become codes
/// once per chunk, then the codes are compared where they lie, as the number columns' range
/// kernels compare packed values.
extension DictionaryCodec {
    /// The chunk's dictionary and its run of `count` codes.
    private static func parse(_ chunk: UnsafeRawBufferPointer,
                              count: Int) throws(QuakeError) -> (ByteArena, PackedRun) {
        var reader = ByteReader(chunk)
        let dict = try CategoryPayload.readDictionary(&reader)
        let width = Int(try reader.u8())
        guard width <= 32 else { throw .corrupt("dictionary code width \(width)") }
        // a view of `chunk`, which outlives it; take checks the run lies in the chunk
        return (dict, PackedRun(try reader.take(BitPacking.bytes(count, width: width)), width: width))
    }

    /// A flag per code (0 is null) set for the entries of `dict` in `values`, then one false entry
    /// that codes past the dictionary read.
    private static func table(_ dict: ByteArena, _ values: Set<[UInt8]>) -> [Bool] {
        var wanted = [Bool](repeating: false, count: dict.count + 2)
        for k in 0..<dict.count where values.contains(Array(dict.bytes[dict.range(k)])) { wanted[k + 1] = true }
        return wanted
    }

    /// Appends to `out` the chunk rows of `rows` whose value is one of `values`, in order.
    /// - Complexity: O(`rows.count`), one compare of a packed code per row.
    package static func select(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>,
                               oneOf values: Set<[UInt8]>, into out: inout [UInt32]) throws(QuakeError) {
        guard rows.lowerBound >= 0, rows.upperBound <= count else { throw .corrupt("row range \(rows) outside chunk") }
        let (dict, run) = try parse(chunk, count: count)
        let flags = table(dict, values)
        let wanted = flags.indices.filter { flags[$0] }
        guard let first = wanted.first, let last = wanted.last, !rows.isEmpty else { return }
        var highest: UInt64 = 0
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: rows.count))
        // SAFETY: `o` has rows.count slots past `start`, the room both kernels need; `p` and `o`
        // stay in the closures.
        let kept = out.withUnsafeMutableBufferPointer { o -> Int in
            guard let at = o.baseAddress?.advanced(by: start) else { return 0 }
            if last - first + 1 == wanted.count {
                return run.select(rows, lo: UInt64(first), span: UInt64(last - first), into: at, highest: &highest)
            }
            return flags.withUnsafeBufferPointer { p in run.select(rows, table: p, into: at, highest: &highest) }
        }
        out.removeLast(rows.count - kept)
        guard highest <= UInt64(dict.count) else { throw .corrupt("dictionary code \(highest) out of range") }
    }

    /// Appends to `out` the rows of `among` (chunk rows, ascending) whose value is one of `values`,
    /// each code read alone.
    /// - Complexity: O(`among.count`).
    package static func select(_ chunk: UnsafeRawBufferPointer, count: Int, among: [UInt32], oneOf values: Set<[UInt8]>,
                               into out: inout [UInt32]) throws(QuakeError) {
        guard let lastRow = among.max() else { return }
        guard Int(lastRow) < count else { throw .corrupt("row \(lastRow) outside chunk") }
        let (dict, run) = try parse(chunk, count: count)
        let wanted = table(dict, values)
        // SAFETY: every row of `among` is at most lastRow, which is below count (checked above),
        // so each code read lies in the run; `a` stays in the closure.
        let highest = among.withUnsafeBufferPointer { a in run.select(among: a, table: wanted, into: &out) }
        guard highest <= UInt64(dict.count) else { throw .corrupt("dictionary code \(highest) out of range") }
    }
}
