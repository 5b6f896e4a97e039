import QuakeSupport
import Foundation
import Synchronization

/// Read access to one v2 partition file: mapped on first use, its directory parsed and checked
/// once, each chunk's checksum checked before its first decode.
package final class PartitionReader: Sendable {
    package let entry: PartitionEntry
    package let path: String
    /// The lazily filled state: a partition may be read by both scan threads.
    private struct State {
        /// The mapped file: it keeps every chunk pointer this reader hands out valid.
        var mapped: MappedFile?
        var dir: PartitionFile.Directory?
        /// Per column and block, whether the chunk's checksum was checked.
        var checked: [Bool] = []
        /// Per column and block, once its head is checked: the chunk's granule sums (nil for chunks
        /// without them, which the directory's checksum covers whole), and which granules were checked.
        var granuleSums: [GranuleSums.Table?] = []
        var granulesChecked: [[Bool]] = []
        var granulesLeft: [Int] = []
        /// Per-chunk results derived from a place chunk's dictionary (a search needle's verdict
        /// per locality code), so that granules of one chunk share them; bounded.
        /// Place tables by block and key: keys by hash in a table of fixed types (a one-shot query pays
        /// for each new hashed type it instantiates), tables beside them.
        var placeTableIndex = IntTable()
        var placeTableKeys: [String] = []
        var placeTables: [[Bool]] = []
        /// Sampled selectivity estimates by caller's key (a block and a range term), scaled to
        /// integers, so that a block's granules share one estimate; bounded.
        var estimates = IntTable()
        /// The place index, once read (nil inside when the file has none).
        var place: PlaceIndex??
        /// The unit aggregate lists read, by list (nil inside when the file has none).
        var aggregates: [Int: UnitAggregates?] = [:]
    }
    private let state = Mutex(State())
    /// Frames of framed chunks whose own sums were checked.
    private let frameChecks = FrameChecks()

    package init(storePath: String, entry: PartitionEntry) {
        self.entry = entry
        self.path = storePath + "/partitions/" + entry.file
    }

    /// The checked directory (chunks, zone maps, granules).
    package func directory() throws(QuakeError) -> PartitionFile.Directory {
        // the first use maps and parses under the lock, so a file is mapped once
        try state.locked { (s) throws(QuakeError) -> PartitionFile.Directory in
            if let dir = s.dir { return dir }
            let file = try MappedFile(path: path)
            let dir = try PartitionFile.directory(file.bytes, path: path, rows: entry.rows)
            s.mapped = file
            s.dir = dir
            let count = Column.count * dir.blockSizes.count
            s.checked = Array(repeating: false, count: count)
            s.granuleSums = Array(repeating: nil, count: count)
            s.granulesChecked = Array(repeating: [], count: count)
            s.granulesLeft = Array(repeating: 0, count: count)
            return dir
        }
    }

    /// The mapping's bytes, or none before ``directory()`` mapped them, with the file that keeps
    /// them mapped (the reader holds it from then on).
    private func mappedBytes() -> (UnsafeRawBufferPointer, MappedFile?) {
        let file = state.locked { $0.mapped }
        // SAFETY: the bytes stay mapped while `file` (returned beside them) or this reader lives.
        return (file?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0), file)
    }

    /// The place index, checksum-checked and parsed on first use; nil for files without one.
    package func placeIndex() throws(QuakeError) -> PlaceIndex? {
        let dir = try directory()
        let (cached, file) = state.locked { ($0.place, $0.mapped) }
        if let cached { return cached }
        let bytes = file?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        var idx: PlaceIndex?
        if let reg = dir.placeIndex {
            // SAFETY: the directory's checks put every region inside the mapped file, which `file`
            // (and this reader) keeps mapped while `region` is read.
            assert(reg.offset >= 0 && reg.offset + reg.length <= bytes.count)
            let region = UnsafeRawBufferPointer(rebasing: bytes[reg.offset..<(reg.offset + reg.length)])
            guard dir.checksum(region) == reg.checksum else { throw .corrupt(path, "place index: checksum mismatch") }
            do {
                idx = try PlaceIndex(region, rows: entry.rows, blockRows: dir.blockRows,
                                     magValues: dir.granules.magValues.count)
            } catch {
                throw .corrupt(path, "\(error.description.replacingPrefix("corrupt store: "))")
            }
        }
        state.locked { $0.place = .some(idx) }
        return idx
    }

    /// The estimate kept under `key`, or `compute`'s (a share of rows, `0...1`), then kept.
    /// Estimates only order kernels: a key two terms share costs time, never an answer.
    package func estimate(_ key: UInt64, _ compute: () -> Double) -> Double {
        if let hit = state.locked({ $0.estimates.value(key) }) { return Double(hit) / 1e9 }
        let dir = compute()
        let kept = Int((Swift.min(Swift.max(dir.isNaN ? 1 : dir, 0), 1) * 1e9).rounded())
        state.locked { s in
            if s.estimates.count >= 4096 { s.estimates = IntTable() }
            s.estimates.set(key, kept)
        }
        return dir
    }

    /// The unit aggregates of group column `group` (an index into
    /// ``UnitAggregates/groupColumns``; nil: of all rows), checksum-checked and parsed on first
    /// use; nil for files without them.
    package func unitAggregates(group: Int?) throws(QuakeError) -> UnitAggregates? {
        let dir = try directory()
        let key = group ?? -1
        let (cached, verified, file) = state.locked { ($0.aggregates[key], !$0.aggregates.isEmpty, $0.mapped) }
        if let cached { return cached }
        let bytes = file?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        var parsed: UnitAggregates?
        if let reg = dir.aggregates {
            // SAFETY: the directory's checks put every region inside the mapped file, which `file`
            // (and this reader) keeps mapped while `region` is read.
            assert(reg.offset >= 0 && reg.offset + reg.length <= bytes.count)
            let region = UnsafeRawBufferPointer(rebasing: bytes[reg.offset..<(reg.offset + reg.length)])
            guard verified || dir.checksum(region) == reg.checksum else {
                throw .corrupt(path, "unit aggregates: checksum mismatch")
            }
            do {
                parsed = try UnitAggregates(region, rows: entry.rows, blockRows: dir.blockRows, group: group)
            } catch {
                throw .corrupt(path, "\(error.description.replacingPrefix("corrupt store: "))")
            }
        }
        state.locked { $0.aggregates[key] = .some(parsed) }
        return parsed
    }

    /// The bytes of the unit aggregates region (for `verify`); nil for files without one.
    package func unitAggregateBytes() throws(QuakeError) -> [UInt8]? {
        let dir = try directory()
        guard let reg = dir.aggregates else { return nil }
        let (bytes, file) = mappedBytes()
        // SAFETY: the region lies inside the mapping (directory checks), kept by `file` for the copy.
        assert(reg.offset >= 0 && reg.offset + reg.length <= bytes.count)
        return withExtendedLifetime(file) { Array(bytes[reg.offset..<(reg.offset + reg.length)]) }
    }

    /// The bytes of the place index region (for `verify`); nil for files without one.
    package func placeIndexBytes() throws(QuakeError) -> [UInt8]? {
        let dir = try directory()
        guard let reg = dir.placeIndex else { return nil }
        let (bytes, file) = mappedBytes()
        // SAFETY: the region lies inside the mapping (directory checks), kept by `file` for the copy.
        assert(reg.offset >= 0 && reg.offset + reg.length <= bytes.count)
        return withExtendedLifetime(file) { Array(bytes[reg.offset..<(reg.offset + reg.length)]) }
    }

    /// The place index and unit aggregates regions' bytes, each nil when the file has none or its
    /// checksum does not match (a rewrite then builds that index whole, as from no file).
    package func checkedIndexRegions() throws(QuakeError) -> (place: [UInt8]?, aggregates: [UInt8]?) {
        let dir = try directory()
        func checked(_ region: PartitionFile.Region?, _ bytes: [UInt8]?) -> [UInt8]? {
            guard let region, let bytes, Checksum.wide(bytes) == region.checksum else { return nil }
            return bytes
        }
        return (checked(dir.placeIndex, try placeIndexBytes()), checked(dir.aggregates, try unitAggregateBytes()))
    }

    /// Whether the place index and unit aggregates regions, where the file has them, match their
    /// checksums (a reader of whole rows never looks at them).
    package func indexRegionsAreSound() throws(QuakeError) -> Bool {
        let dir = try directory()
        let regions = try checkedIndexRegions()
        return (dir.placeIndex == nil || regions.place != nil) && (dir.aggregates == nil || regions.aggregates != nil)
    }

    /// The zone maps of column `c`, one per block.
    package func blocks(_ c: Column) throws(QuakeError) -> [PartitionFile.ChunkInfo] {
        try directory().chunks[c.rawValue]
    }

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
        let dir = try directory()
        guard k >= 0, k < dir.blockSizes.count else { throw .corrupt(path, "no block \(k)") }
        let info = dir.chunks[c.rawValue][k]
        let at = c.rawValue * dir.blockSizes.count + k
        let (file, seen) = state.locked { ($0.mapped, $0.checked[at]) }
        let bytes = file?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        // SAFETY: the directory's checks put every chunk inside the file's data area; the mapping
        // stays in `state.mapped` for the reader's life, so `payload` stays valid while the reader lives
        // (its callers hold the reader while they decode).
        assert(info.offset >= 0 && info.offset + info.length <= bytes.count)
        let payload = UnsafeRawBufferPointer(rebasing: bytes[info.offset..<(info.offset + info.length)])
        if !seen {
            guard dir.checksum(chunk: payload, info) == info.checksum else {
                throw .corrupt(path, "checksum mismatch", position: .block(column: c.name, index: k))
            }
            // the head checked, its granule table and body parse from checked bytes
            let table: GranuleSums.Table?
            do { table = dir.wideChecksums ? try info.codec.granuleSums(payload, count: info.rows) : nil } catch {
                throw .corrupt(path, "column \(c) block \(k): \(error.description.replacingPrefix("corrupt store: "))")
            }
            state.locked { s in
                if !s.checked[at] {
                    s.granuleSums[at] = table
                    s.granulesChecked[at] = Array(repeating: false, count: table?.granules ?? 0)
                    s.granulesLeft[at] = table?.granules ?? 0
                    s.checked[at] = true
                }
            }
        }
        try checkGranules(at, reach, c, k, rows: info.rows)
        return (payload, info)
    }

    /// Checks the granules of chunk `at` that `reach` touches and were not checked yet. A warm
    /// read finds them all checked under one lock, and allocates nothing.
    private func checkGranules(_ at: Int, _ reach: Reach, _ c: Column, _ k: Int, rows: Int) throws(QuakeError) {
        let found = state.locked { s -> (GranuleSums.Table, [Int])? in
            guard let table = s.granuleSums[at], s.granulesLeft[at] > 0 else { return nil }
            var pending: [Int] = []
            let granules = table.granules
            switch reach {
            case .all:
                for g in 0..<granules where !s.granulesChecked[at][g] { pending.append(g) }
            case .rows(let row):
                for g in GranuleSums.Table.granules(of: row.clamped(to: 0..<rows)) where g < granules
                    && !s.granulesChecked[at][g] {
                    pending.append(g)
                }
            case .among(let list):
                var last = -1
                for r in list {
                    let granule = Int(r) / GranuleIndex.granuleRows
                    if granule != last, granule < granules, !s.granulesChecked[at][granule] { pending.append(granule) }
                    last = granule
                }
            }
            return (table, pending)
        }
        guard let (table, pending) = found, !pending.isEmpty else { return }
        // the sums are checked outside the lock, as before; the table's memory is the mapping
        // this reader keeps
        for g in pending where !table.check(g) {
            throw .corrupt(path, "granule \(g): checksum mismatch", position: .block(column: c.name, index: k))
        }
        state.locked { s in
            for g in pending where !s.granulesChecked[at][g] {
                s.granulesChecked[at][g] = true
                s.granulesLeft[at] -= 1
            }
        }
    }

    /// Whether the file ends with the magic this build writes (an older file's chunks may lack
    /// what a newer file's readers expect, such as granule sums).
    package func isCurrentFormat() throws(QuakeError) -> Bool {
        _ = try directory()
        let (bytes, file) = mappedBytes()
        // SAFETY: directory() checked that the mapping holds at least a footer; `file` keeps it mapped.
        guard bytes.count >= PartitionFile.footerSize else { return false }
        return withExtendedLifetime(file) { Array(bytes[(bytes.count - 8)...]) == PartitionFile.magic }
    }

    /// Column `c`'s chunks as they lie in the file, for a rewrite of the same rows that leaves the
    /// column as it was (``PartitionFile/encode(_:blockRows:reused:)``). Each chunk's head, and
    /// the packed data its granule sums cover, are checked first, as a decode would; frames keep
    /// their own sums, so damage a copy carries stays found. With `blocks`, the first ones only.
    package func columnImage(_ c: Column, blocks: Int? = nil) throws(QuakeError) -> PartitionFile.ColumnImage {
        var image = PartitionFile.ColumnImage(bytes: [], chunks: [])
        let count = try directory().blockSizes.count
        for block in 0..<Swift.min(count, blocks ?? count) {
            let (payload, info) = try chunk(c, block)
            var copied = info
            copied.offset = image.bytes.count
            image.bytes.append(contentsOf: payload)
            image.chunks.append(copied)
        }
        return image
    }

    /// Decodes rows `rows` (all rows when nil) of block `k` of column `c`.
    package func decode(_ c: Column, block k: Int, rows: Range<Int>? = nil,
                        as form: VectorForm = .stored) throws(QuakeError) -> ColumnVector {
        let (payload, info) = try chunk(c, k, rows.map { .rows($0) } ?? .all)
        do {
            return try info.codec.decode(payload, count: info.rows, rows: rows ?? 0..<info.rows, as: form,
                                         checks: frameChecks)
        } catch {
            throw .corrupt(path, "column \(c) block \(k): \(error.description.replacingPrefix("corrupt store: "))")
        }
    }

    /// Block-relative rows of `rows` whose value of `c` lies in `range`, evaluated on encoded
    /// values; nil when the chunk's codec cannot, and the caller must decode.
    package func select(_ c: Column, block k: Int, rows: Range<Int>,
                        _ range: RangePredicate) throws(QuakeError) -> [UInt32]? {
        let (payload, info) = try chunk(c, k, .rows(rows))
        var out: [UInt32] = []
        do {
            return try info.codec.select(payload, count: info.rows, rows: rows, range, into: &out) ? out : nil
        } catch {
            throw .corrupt(path, "column \(c) block \(k): \(error.description.replacingPrefix("corrupt store: "))")
        }
    }

    /// Block-relative rows of `rows` whose time lies in `lo..<hi`, one run, as the block is in time
    /// order: found from the miniblock headers, not by decoding the rows; nil when the chunk's
    /// codec cannot (or it holds nulls), and the caller must decode.
    package func timeRun(block k: Int, rows: Range<Int>, _ lo: Int64?, _ hi: Int64?)
        throws(QuakeError) -> Range<Int>? {
        let (payload, info) = try chunk(.time, k, .rows(rows))
        guard info.codec == .forInteger else { return nil }
        do {
            return try ForIntegerCodec.sortedRun(payload, count: info.rows, rows: rows, lo, hi)
        } catch {
            throw .corrupt(path, "column time block \(k): \(error.description.replacingPrefix("corrupt store: "))")
        }
    }

    /// The most decimals a value of decimal column `c` in block `k` has (the chunk's scale, read
    /// from its checked head); nil when the chunk is not frame-of-reference coded.
    package func decimalScale(_ c: Column, block k: Int) throws(QuakeError) -> Int? {
        let (payload, info) = try chunk(c, k, .rows(0..<0))
        guard info.codec == .forDecimal else { return nil }
        do {
            return try ForDecimalCodec.scale(payload, count: info.rows)
        } catch {
            throw .corrupt(path, "column \(c) block \(k): \(error.description.replacingPrefix("corrupt store: "))")
        }
    }

    /// The rows of `among` (ascending, block-relative) whose value of `c` lies in `range`, each
    /// read alone from the encoded chunk; nil when the codec cannot, and the caller must decode.
    package func select(_ c: Column, block k: Int, among: [UInt32],
                        _ range: RangePredicate) throws(QuakeError) -> [UInt32]? {
        let (payload, info) = try chunk(c, k, .among(among))
        var out: [UInt32] = []
        out.reserveCapacity(among.count)
        do {
            return try info.codec.select(payload, count: info.rows, among: among, range, into: &out) ? out : nil
        } catch {
            throw .corrupt(path, "column \(c) block \(k): \(error.description.replacingPrefix("corrupt store: "))")
        }
    }

    /// Block-relative rows of `rows` (or of `among`, ascending, when given) whose value of the
    /// category column `c` is one of `values`, on the packed codes; nil when the chunk is not
    /// dictionary-coded, and the caller must decode.
    package func select(_ c: Column, block k: Int, rows: Range<Int>, among: [UInt32]? = nil,
                        oneOf values: Set<[UInt8]>) throws(QuakeError) -> [UInt32]? {
        let (payload, info) = try chunk(c, k, among.map { .among($0) } ?? .rows(rows))
        guard info.codec == .dictionary else { return nil }
        var out: [UInt32] = []
        do throws(QuakeError) {
            if let among {
                try DictionaryCodec.select(payload, count: info.rows, among: among, oneOf: values, into: &out)
            } else {
                try DictionaryCodec.select(payload, count: info.rows, rows: rows, oneOf: values, into: &out)
            }
        } catch {
            throw .corrupt(path, "column \(c) block \(k): \(error.description.replacingPrefix("corrupt store: "))")
        }
        return out
    }

    /// The locality dictionary and per-row locality codes of rows `rows` of the place column
    /// (0 for null): read from the open codes of a ``PlaceCodesCodec`` chunk without
    /// decompressing anything, or decoded from older place chunks.
    package func placeCodes(block k: Int, rows: Range<Int>,
                            dictionary: Bool = true) throws(QuakeError) -> (ByteArena, [UInt32]) {
        let (payload, info) = try chunk(.place, k)
        do throws(QuakeError) {
            if info.codec == .placeCodes {
                guard rows.lowerBound >= 0, rows.upperBound <= info.rows else {
                    throw .corrupt("row range \(rows) outside chunk")
                }
                let parsed = try PlaceCodesCodec.parse(payload, count: info.rows, dictionary: dictionary,
                                                       checks: frameChecks)
                return (parsed.dictionary, try parsed.codes(rows))
            }
            guard case .place(let place) = try info.codec.decode(payload, count: info.rows, rows: rows,
                                                                 as: .stored) else {
                throw .corrupt("not a place chunk")
            }
            return (place.localities, place.locality)
        } catch {
            throw .corrupt(path, "column place block \(k): \(error.description.replacingPrefix("corrupt store: "))")
        }
    }

    /// Locality codes of single rows of block `k` (`base` plus each of `rows`), read one by one
    /// from a ``PlaceCodesCodec`` chunk; nil for older codecs.
    package func placeCodes(block k: Int, base: Int, rows: [UInt32]) throws(QuakeError) -> [UInt32]? {
        let (payload, info) = try chunk(.place, k)
        guard info.codec == .placeCodes else { return nil }
        do throws(QuakeError) {
            let parsed = try PlaceCodesCodec.parse(payload, count: info.rows, dictionary: false, checks: frameChecks)
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
        let dir = try directory()
        guard k >= 0, k < dir.blockSizes.count, dir.chunks[Column.place.rawValue][k].codec == .placeCodes else {
            return nil
        }
        let full = "\(k)|" + key
        let hash = Manifest.nameHash(full)
        let hit = state.locked { s in
            s.placeTableIndex.first(hash) { s.placeTableKeys[$0] == full }.map { s.placeTables[$0] }
        }
        if let hit { return hit }
        let (dict, _) = try placeCodes(block: k, rows: 0..<0)
        let table = build(dict)
        state.locked { s in
            if s.placeTables.count >= 256 {
                s.placeTableIndex = IntTable()
                s.placeTableKeys.removeAll()
                s.placeTables.removeAll()
            }
            if s.placeTableIndex.first(hash, where: { s.placeTableKeys[$0] == full }) == nil {
                s.placeTableIndex.add(hash, s.placeTables.count)
                s.placeTableKeys.append(full)
                s.placeTables.append(table)
            }
        }
        return table
    }

    /// Raw `Int64` values of a timestamp or decimal column block.
    package func ints(_ c: Column, block k: Int, rows: Range<Int>? = nil) throws(QuakeError) -> [Int64] {
        guard case .ints(let values) = try decode(c, block: k, rows: rows) else {
            throw .corrupt(path, "column \(c) is not numeric")
        }
        return values
    }

    /// Raw `Int64` values of a timestamp or decimal column for every row of the partition, read
    /// only in granules `granules` (ascending): the other rows hold ``RowBatch/null``.
    package func ints(_ c: Column, granules: [Int]) throws(QuakeError) -> [Int64] {
        let dir = try directory()
        var values = [Int64](repeating: RowBatch.null, count: dir.rows)
        var blockStart = 0
        var block = 0
        for granule in granules {
            let rows = (granule * GranuleIndex.granuleRows)..<Swift.min(dir.rows, (granule + 1) * GranuleIndex.granuleRows)
            var row = rows.lowerBound
            while row < rows.upperBound {
                while block < dir.blockSizes.count && blockStart + dir.blockSizes[block] <= row {
                    blockStart += dir.blockSizes[block]
                    block += 1
                }
                guard block < dir.blockSizes.count else { throw .corrupt(path, "no block holds row \(row)") }
                let end = Swift.min(rows.upperBound, blockStart + dir.blockSizes[block])
                let read = try ints(c, block: block, rows: (row - blockStart)..<(end - blockStart))
                guard read.count == end - row else { throw .corrupt(path, "column \(c) block \(block) is short") }
                values.replaceSubrange(row..<end, with: read)
                row = end
            }
        }
        return values
    }

    /// A column block as strings in a ``ByteArena`` (category, text or place columns).
    package func arena(_ c: Column, block k: Int) throws(QuakeError) -> ByteArena {
        switch try decode(c, block: k) {
        case .category(let category): return category.arena()
        case .text(let arena): return arena
        case .place(let place): return place.arena()
        default: throw .corrupt(path, "column \(c) is not a string column")
        }
    }

    /// Every row of the partition, all columns (stored rows: every field present, oldest seq).
    package func readAll() throws(QuakeError) -> RowBatch {
        var batch = RowBatch()
        let count = try directory().blockSizes.count
        for c in Column.allCases {
            for k in 0..<count {
                if RowBatch.isInt(c) { batch.ints[c.rawValue].append(contentsOf: try ints(c, block: k)) } else {
                    let blockArena = try arena(c, block: k)
                    let base = batch.text[c.rawValue].bytes.count
                    batch.text[c.rawValue].bytes.append(contentsOf: blockArena.bytes)
                    batch.text[c.rawValue].ends.append(contentsOf: blockArena.ends.map { $0 + base })
                }
            }
        }
        batch.count = entry.rows
        if let stored = try provenance() {
            batch.present = stored.present
            batch.origins = stored.origins
        } else {
            batch.present = Array(repeating: Column.allMask, count: entry.rows)
        }
        batch.seq = Array(repeating: Int64.min, count: entry.rows)
        return batch
    }

    /// The rows' carried fields and field origins (``ProvenanceRegion``), checksum-checked;
    /// nil for files without the region.
    package func provenance() throws(QuakeError) -> (present: [UInt64], origins: [Int: [FieldOrigin]])? {
        let fileDirectory = try self.directory()
        guard let reg = fileDirectory.provenance else { return nil }
        let (bytes, file) = mappedBytes()
        // SAFETY: the directory's checks put the region inside the mapping, which `file` keeps
        // mapped while `region` is read; decode copies what it keeps.
        assert(reg.offset >= 0 && reg.offset + reg.length <= bytes.count)
        defer { withExtendedLifetime(file) {} }
        let region = UnsafeRawBufferPointer(rebasing: bytes[reg.offset..<(reg.offset + reg.length)])
        guard fileDirectory.checksum(region) == reg.checksum else {
            throw .corrupt(path, "provenance: checksum mismatch")
        }
        do {
            return try ProvenanceRegion.decode(region, rows: entry.rows)
        } catch {
            throw .corrupt(path, "\(error.description.replacingPrefix("corrupt store: "))")
        }
    }
}
