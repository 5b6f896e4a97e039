/// Event ids for a set of rows, decoding the id column one granule at a time (one zstd frame
/// each), and only the granules the rows fall in.
struct IdFetcher {
    let executor: QueryExecutor

    func ids(_ refs: [RowRef]) throws -> [String] {
        var out = [String](repeating: "", count: refs.count)
        let order = refs.indices.sorted { (refs[$0].partition, refs[$0].row) < (refs[$1].partition, refs[$1].row) }
        var cache: (p: Int, block: Int, window: Range<Int>, arena: ByteArena)?
        for i in order {
            let ref = refs[i]
            let r = executor.reader(ref.partition)
            let blockRows = try r.directory().blockRows
            let k = ref.row / blockRows
            let inBlock = ref.row - k * blockRows
            if let c = cache, c.p == ref.partition, c.block == k, c.window.contains(inBlock) {
                out[i] = c.arena.string(inBlock - c.window.lowerBound) ?? ""
                continue
            }
            let g = GranuleIndex.granuleRows
            let sizes = try r.directory().blockSizes
            guard k < sizes.count else { throw StoreError.corrupt("\(r.path): no row \(ref.row)") }
            let size = sizes[k]
            let lo = inBlock / g * g
            let window = lo..<Swift.min(size, lo + g)
            guard case .text(let a) = try r.decode(.id, block: k, rows: window) else {
                throw StoreError.corrupt("\(r.path): id column is not text")
            }
            cache = (ref.partition, k, window, a)
            out[i] = a.string(inBlock - lo) ?? ""
        }
        return out
    }
}
