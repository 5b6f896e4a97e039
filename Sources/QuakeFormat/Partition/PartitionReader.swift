import Foundation

/// Read access to one v2 partition file: mapped on first use, its directory parsed and checked
/// once, each chunk's checksum checked before its first decode.
package final class PartitionReader: @unchecked Sendable {
    package let entry: PartitionEntry
    package let path: String
    private var mapped: MappedFile?
    private var dir: PartitionFile.Directory?
    /// Per column and block, whether the chunk's checksum was checked.
    private var checked: [Bool] = []
    /// Per column and block, once its head is checked: the chunk's granule sums (nil for chunks
    /// without them, which the directory's checksum covers whole), and which granules were checked.
    private var granuleSums: [GranuleSums.Table?] = []
    private var granulesChecked: [[Bool]] = []
    private var granulesLeft: [Int] = []
    /// Per-chunk results derived from a place chunk's dictionary (a search needle's verdict
    /// per locality code), so that granules of one chunk share them; bounded.
    /// Place tables by block and key: keys by hash in a table of fixed types (a one-shot query pays
    /// for each new hashed type it instantiates), tables beside them.
    private var placeTableIndex = IntTable()
    private var placeTableKeys: [String] = []
    private var placeTables: [[Bool]] = []
    /// Sampled selectivity estimates by caller's key (a block and a range term), scaled to
    /// integers, so that a block's granules share one estimate; bounded.
    private var estimates = IntTable()
    /// The place index, once read (nil inside when the file has none).
    private var place: PlaceIndex??
    /// The unit aggregate lists read, by list (nil inside when the file has none).
    private var aggregates: [Int: UnitAggregates?] = [:]
    /// Guards the lazily filled state: a partition may be read by both scan threads.
    private let lock = NSLock()
    /// Frames of framed chunks whose own sums were checked.
    private let frameChecks = FrameChecks()

    package init(storePath: String, entry: PartitionEntry) {
        self.entry = entry
        self.path = storePath + "/partitions/" + entry.file
    }

    /// The checked directory (chunks, zone maps, granules).
    package func directory() throws(QuakeError) -> PartitionFile.Directory {
        lock.lock()
        defer { lock.unlock() }
        if let dir { return dir }
        let f = try MappedFile(path: path)
        let d = try PartitionFile.directory(f.bytes, path: path, rows: entry.rows)
        mapped = f
        dir = d
        checked = Array(repeating: false, count: Column.count * d.blockSizes.count)
        granuleSums = Array(repeating: nil, count: checked.count)
        granulesChecked = Array(repeating: [], count: checked.count)
        granulesLeft = Array(repeating: 0, count: checked.count)
        return d
    }

    /// The place index, checksum-checked and parsed on first use; nil for files without one.
    package func placeIndex() throws(QuakeError) -> PlaceIndex? {
        let d = try directory()
        lock.lock()
        let cached = place
        let bytes = mapped?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        lock.unlock()
        if let cached { return cached }
        var idx: PlaceIndex?
        if let reg = d.placeIndex {
            let p = UnsafeRawBufferPointer(rebasing: bytes[reg.offset..<(reg.offset + reg.length)])
            guard d.checksum(p) == reg.checksum else { throw .corrupt(path, "place index: checksum mismatch") }
            do {
                idx = try PlaceIndex(p, rows: entry.rows, blockRows: d.blockRows, magValues: d.granules.magValues.count)
            } catch {
                throw .corrupt(path, "\(error.description.replacingPrefix("corrupt store: "))")
            }
        }
        lock.lock()
        place = .some(idx)
        lock.unlock()
        return idx
    }

    /// The estimate kept under `key`, or `compute`'s (a share of rows, `0...1`), then kept.
    /// Estimates only order kernels: a key two terms share costs time, never an answer.
    package func estimate(_ key: UInt64, _ compute: () -> Double) -> Double {
        lock.lock()
        let hit = estimates.value(key)
        lock.unlock()
        if let hit { return Double(hit) / 1e9 }
        let d = compute()
        let kept = Int((Swift.min(Swift.max(d.isNaN ? 1 : d, 0), 1) * 1e9).rounded())
        lock.lock()
        if estimates.count >= 4096 { estimates = IntTable() }
        estimates.set(key, kept)
        lock.unlock()
        return d
    }

    /// The unit aggregates of group column `group` (an index into
    /// ``UnitAggregates/groupColumns``; nil: of all rows), checksum-checked and parsed on first
    /// use; nil for files without them.
    package func unitAggregates(group: Int?) throws(QuakeError) -> UnitAggregates? {
        let d = try directory()
        let key = group ?? -1
        lock.lock()
        let cached = aggregates[key]
        let verified = !aggregates.isEmpty
        let bytes = mapped?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        lock.unlock()
        if let cached { return cached }
        var parsed: UnitAggregates?
        if let reg = d.aggregates {
            let p = UnsafeRawBufferPointer(rebasing: bytes[reg.offset..<(reg.offset + reg.length)])
            guard verified || d.checksum(p) == reg.checksum else {
                throw .corrupt(path, "unit aggregates: checksum mismatch")
            }
            do {
                parsed = try UnitAggregates(p, rows: entry.rows, blockRows: d.blockRows, group: group)
            } catch {
                throw .corrupt(path, "\(error.description.replacingPrefix("corrupt store: "))")
            }
        }
        lock.lock()
        aggregates[key] = .some(parsed)
        lock.unlock()
        return parsed
    }

    /// The bytes of the unit aggregates region (for `verify`); nil for files without one.
    package func unitAggregateBytes() throws(QuakeError) -> [UInt8]? {
        let d = try directory()
        guard let reg = d.aggregates else { return nil }
        lock.lock()
        let bytes = mapped?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        lock.unlock()
        return Array(bytes[reg.offset..<(reg.offset + reg.length)])
    }

    /// The bytes of the place index region (for `verify`); nil for files without one.
    package func placeIndexBytes() throws(QuakeError) -> [UInt8]? {
        let d = try directory()
        guard let reg = d.placeIndex else { return nil }
        lock.lock()
        let bytes = mapped?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        lock.unlock()
        return Array(bytes[reg.offset..<(reg.offset + reg.length)])
    }

    /// The zone maps of column `c`, one per block.
    package func blocks(_ c: Column) throws(QuakeError) -> [PartitionFile.ChunkInfo] { try directory().chunks[c.rawValue] }

    /// The fine zone maps and mag histogram.
    package func granules() throws(QuakeError) -> GranuleIndex { try directory().granules }

    /// The rows of a chunk a read touches, for the granule sums to check first.
    private enum Reach {
        case all
        case rows(Range<Int>)
        /// Ascending rows.
        case among([UInt32])
    }

    /// The bytes of chunk (`c`, `k`), its head checksum-checked on first use, and the packed
    /// data of the granules `reach` touches checked against their sums (``GranuleSums``).
    private func chunk(_ c: Column, _ k: Int, _ reach: Reach = .all) throws(QuakeError)
        -> (UnsafeRawBufferPointer, PartitionFile.ChunkInfo) {
        let d = try directory()
        guard k >= 0, k < d.blockSizes.count else { throw .corrupt(path, "no block \(k)") }
        let info = d.chunks[c.rawValue][k]
        let at = c.rawValue * d.blockSizes.count + k
        lock.lock()
        let bytes = mapped?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        let seen = checked[at]
        lock.unlock()
        let p = UnsafeRawBufferPointer(rebasing: bytes[info.offset..<(info.offset + info.length)])
        if !seen {
            guard d.checksum(chunk: p, info) == info.checksum else {
                throw .corrupt(path, "checksum mismatch", position: .block(column: c.name, index: k))
            }
            // the head checked, its granule table and body parse from checked bytes
            let table: GranuleSums.Table?
            do { table = d.wideChecksums ? try info.codec.granuleSums(p, count: info.rows) : nil } catch {
                throw .corrupt(path, "column \(c) block \(k): \(error.description.replacingPrefix("corrupt store: "))")
            }
            lock.lock()
            if !checked[at] {
                granuleSums[at] = table
                granulesChecked[at] = Array(repeating: false, count: table?.granules ?? 0)
                granulesLeft[at] = table?.granules ?? 0
                checked[at] = true
            }
            lock.unlock()
        }
        try checkGranules(at, reach, c, k, rows: info.rows)
        return (p, info)
    }

    /// Checks the granules of chunk `at` that `reach` touches and were not checked yet. A warm
    /// read finds them all checked under one lock, and allocates nothing.
    private func checkGranules(_ at: Int, _ reach: Reach, _ c: Column, _ k: Int, rows: Int) throws(QuakeError) {
        var pending: [Int] = []
        lock.lock()
        guard let table = granuleSums[at], granulesLeft[at] > 0 else {
            lock.unlock()
            return
        }
        let n = table.granules
        switch reach {
        case .all:
            for g in 0..<n where !granulesChecked[at][g] { pending.append(g) }
        case .rows(let r):
            for g in GranuleSums.Table.granules(of: r.clamped(to: 0..<rows)) where g < n && !granulesChecked[at][g] {
                pending.append(g)
            }
        case .among(let list):
            var last = -1
            for r in list {
                let g = Int(r) / GranuleIndex.granuleRows
                if g != last, g < n, !granulesChecked[at][g] { pending.append(g) }
                last = g
            }
        }
        lock.unlock()
        if pending.isEmpty { return }
        for g in pending where !table.check(g) {
            throw .corrupt(path, "granule \(g): checksum mismatch", position: .block(column: c.name, index: k))
        }
        lock.lock()
        for g in pending where !granulesChecked[at][g] {
            granulesChecked[at][g] = true
            granulesLeft[at] -= 1
        }
        lock.unlock()
    }

    /// Decodes rows `rows` (all rows when nil) of block `k` of column `c`.
    package func decode(_ c: Column, block k: Int, rows: Range<Int>? = nil, as form: VectorForm = .stored) throws(QuakeError) -> ColumnVector {
        let (p, info) = try chunk(c, k, rows.map { .rows($0) } ?? .all)
        do {
            return try info.codec.decode(p, count: info.rows, rows: rows ?? 0..<info.rows, as: form, checks: frameChecks)
        } catch {
            throw .corrupt(path, "column \(c) block \(k): \(error.description.replacingPrefix("corrupt store: "))")
        }
    }

    /// Block-relative rows of `rows` whose value of `c` lies in `range`, evaluated on encoded
    /// values; nil when the chunk's codec cannot, and the caller must decode.
    package func select(_ c: Column, block k: Int, rows: Range<Int>, _ range: RangePredicate) throws(QuakeError) -> [UInt32]? {
        let (p, info) = try chunk(c, k, .rows(rows))
        var out: [UInt32] = []
        do {
            return try info.codec.select(p, count: info.rows, rows: rows, range, into: &out) ? out : nil
        } catch {
            throw .corrupt(path, "column \(c) block \(k): \(error.description.replacingPrefix("corrupt store: "))")
        }
    }

    /// The rows of `among` (ascending, block-relative) whose value of `c` lies in `range`, each
    /// read alone from the encoded chunk; nil when the codec cannot, and the caller must decode.
    package func select(_ c: Column, block k: Int, among: [UInt32], _ range: RangePredicate) throws(QuakeError) -> [UInt32]? {
        let (p, info) = try chunk(c, k, .among(among))
        var out: [UInt32] = []
        out.reserveCapacity(among.count)
        do {
            return try info.codec.select(p, count: info.rows, among: among, range, into: &out) ? out : nil
        } catch {
            throw .corrupt(path, "column \(c) block \(k): \(error.description.replacingPrefix("corrupt store: "))")
        }
    }

    /// The locality dictionary and per-row locality codes of rows `rows` of the place column
    /// (0 for null): read from the open codes of a ``PlaceCodesCodec`` chunk without
    /// decompressing anything, or decoded from older place chunks.
    package func placeCodes(block k: Int, rows: Range<Int>, dictionary: Bool = true) throws(QuakeError) -> (ByteArena, [UInt32]) {
        let (p, info) = try chunk(.place, k)
        do throws(QuakeError) {
            if info.codec == .placeCodes {
                guard rows.lowerBound >= 0, rows.upperBound <= info.rows else { throw .corrupt("row range \(rows) outside chunk") }
                let parsed = try PlaceCodesCodec.parse(p, count: info.rows, dictionary: dictionary, checks: frameChecks)
                return (parsed.dictionary, try parsed.codes(rows))
            }
            guard case .place(let b) = try info.codec.decode(p, count: info.rows, rows: rows, as: .stored) else {
                throw .corrupt("not a place chunk")
            }
            return (b.localities, b.locality)
        } catch {
            throw .corrupt(path, "column place block \(k): \(error.description.replacingPrefix("corrupt store: "))")
        }
    }

    /// Locality codes of single rows of block `k` (`base` plus each of `rows`), read one by one
    /// from a ``PlaceCodesCodec`` chunk; nil for older codecs.
    package func placeCodes(block k: Int, base: Int, rows: [UInt32]) throws(QuakeError) -> [UInt32]? {
        let (p, info) = try chunk(.place, k)
        guard info.codec == .placeCodes else { return nil }
        do throws(QuakeError) {
            let parsed = try PlaceCodesCodec.parse(p, count: info.rows, dictionary: false, checks: frameChecks)
            var out: [UInt32] = []
            out.reserveCapacity(rows.count)
            for r in rows {
                let row = base + Int(r)
                guard row < info.rows else { throw .corrupt("row \(row) outside chunk") }
                out.append(try parsed.code(row))
            }
            return out
        } catch {
            throw .corrupt(path, "column place block \(k): \(error.description.replacingPrefix("corrupt store: "))")
        }
    }

    /// A table over the place dictionary of block `k`, built once per chunk and `key` when the
    /// chunk's dictionary covers the whole chunk (``PlaceCodesCodec``); nil for older codecs,
    /// whose dictionaries differ by row range.
    package func placeTable(block k: Int, key: String, build: (ByteArena) -> [Bool]) throws(QuakeError) -> [Bool]? {
        let d = try directory()
        guard k >= 0, k < d.blockSizes.count, d.chunks[Column.place.rawValue][k].codec == .placeCodes else { return nil }
        let full = "\(k)|" + key
        let h = Manifest.nameHash(full)
        lock.lock()
        let hit = placeTableIndex.first(h) { placeTableKeys[$0] == full }.map { placeTables[$0] }
        lock.unlock()
        if let hit { return hit }
        let (dict, _) = try placeCodes(block: k, rows: 0..<0)
        let t = build(dict)
        lock.lock()
        if placeTables.count >= 256 {
            placeTableIndex = IntTable()
            placeTableKeys.removeAll()
            placeTables.removeAll()
        }
        if placeTableIndex.first(h, where: { placeTableKeys[$0] == full }) == nil {
            placeTableIndex.add(h, placeTables.count)
            placeTableKeys.append(full)
            placeTables.append(t)
        }
        lock.unlock()
        return t
    }

    /// Raw `Int64` values of a timestamp or decimal column block.
    package func ints(_ c: Column, block k: Int, rows: Range<Int>? = nil) throws(QuakeError) -> [Int64] {
        guard case .ints(let v) = try decode(c, block: k, rows: rows) else { throw .corrupt(path, "column \(c) is not numeric") }
        return v
    }

    /// A column block as strings in a ``ByteArena`` (category, text or place columns).
    package func arena(_ c: Column, block k: Int) throws(QuakeError) -> ByteArena {
        switch try decode(c, block: k) {
        case .category(let b): return b.arena()
        case .text(let a): return a
        case .place(let p): return p.arena()
        default: throw .corrupt(path, "column \(c) is not a string column")
        }
    }

    /// Every row of the partition, all columns (stored rows: every field present, oldest seq).
    package func readAll() throws(QuakeError) -> RowBatch {
        var batch = RowBatch()
        let n = try directory().blockSizes.count
        for c in Column.allCases {
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
