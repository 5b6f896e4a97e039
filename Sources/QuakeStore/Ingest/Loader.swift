import Foundation

/// Bulk upsert of feed files into a store, in three passes with memory bounded by batch and
/// partition size:
///
/// 1. **Spill**: parse each file in batches; append rows to one spill file per time
///    partition, and (id, time, updated, seq) records to one spill per id-hash bucket.
/// 2. **Resolve** (per id bucket): join the new records with the stored id index; pick each
///    event's winning version (highest `updated`, then the later file); note events whose
///    versions sit in other partitions than the winner (moves); write the new index bucket.
/// 3. **Merge** (per partition): carry moved rows to their winner's partition, then fold each
///    event's versions oldest to newest (fields the newer source lacks keep older values),
///    compare with the stored row, and write changed partitions to new folders.
///
/// Nothing is visible until the manifest is atomically replaced at the end.
final class Loader {
    let storePath: String
    let old: Manifest
    let options: LoadOptions
    let generation: Int
    let tmp: String
    var partitioning: Partitioning { old.partitioning }

    private var partSpills: [Int: SpillFile] = [:]
    private var partBuffers: [Int: RowBatch] = [:]
    private var bufferedRows = 0
    private var idSpills: [SpillFile] = []
    private var idBuffers: [IdRecords]
    private var summary = LoadSummary()
    private let start = Date()
    private let rejectCounter = Counter()

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func add() { lock.lock(); n += 1; lock.unlock() }
        var value: Int { lock.lock(); defer { lock.unlock() }; return n }
    }

    init(storePath: String, manifest: Manifest, options: LoadOptions) throws(StoreError) {
        self.storePath = storePath
        self.old = manifest
        self.options = options
        self.generation = manifest.generation + 1
        self.tmp = storePath + "/tmp"
        idBuffers = Array(repeating: IdRecords(), count: Manifest.idBucketCount)
        FileIO.remove(tmp)
        try FileIO.makeDirectory(tmp)
        for b in 0..<Manifest.idBucketCount { idSpills.append(try SpillFile(path: "\(tmp)/ids-\(b).spill")) }
    }

    func run(_ paths: [String]) throws -> (LoadSummary, Manifest?) {
        let files = try InputFiles.expand(paths)
        let trace = ProcessInfo.processInfo.environment["QUAKES_TRACE"] != nil
        func mark(_ phase: String) {
            options.onPhase?(phase)
            if trace { FileHandle.standardError.write(Data("trace: \(phase) at \(String(format: "%.2f", Date().timeIntervalSince(start))) s\n".utf8)) }
        }
        try spillAll(files)
        mark("spilled")
        var moves = try resolve()
        mark("resolved")
        let entries = try merge(&moves)
        mark("merged")
        summary.rejected = rejectCounter.value
        if options.strict && summary.rejected > 0 {
            throw IngestError.strict("--strict: \(summary.rejected) row\(summary.rejected == 1 ? "" : "s") rejected; nothing committed")
        }
        let manifest = newManifest(entries)
        summary.elapsedSeconds = Date().timeIntervalSince(start)
        return (summary, manifest)
    }

    // MARK: pass 1: spill

    private func spillAll(_ files: [String]) throws {
        for (fi, path) in files.enumerated() {
            summary.files += 1
            try flushAll()
            let marks = (parts: partSpills.mapValues { $0.size }, ids: idSpills.map { $0.size },
                         rows: summary.rowsRead, rejects: rejectCounter.value, bytes: summary.bytesRead)
            let counter = rejectCounter
            let onReject = options.onReject
            let seqBase = Int64(fi + 1) << 40
            func rollBack() {
                summary.rowsRead = marks.rows
                summary.bytesRead = marks.bytes
                partBuffers = [:]
                bufferedRows = 0
                for b in 0..<idBuffers.count { idBuffers[b] = IdRecords() }
                for (o, s) in partSpills { s.truncate(to: marks.parts[o] ?? 0) }
                for (b, s) in idSpills.enumerated() { s.truncate(to: marks.ids[b]) }
            }
            do {
                let reader = try FeedReader(path: path, seqBase: seqBase) { r in
                    counter.add()
                    onReject?(r)
                }
                for w in reader.warnings { options.onMessage?("warning: \(w)") }
                if let split = SplitParse(path: path, reader: reader, seqBase: seqBase, workers: options.parseWorkers,
                                          minimumBytes: options.splitBytes) {
                    try consume(path, pieces: split.pieces.count) { pipe in split.start(pipe, batchRows: options.batchRows) }
                    if split.cutsWereRight {
                        for r in split.rejects { counter.add(); onReject?(r) }
                        summary.bytesRead += reader.input.fileSize ?? 0
                    } else {
                        // a quoted newline straddled a cut: parse the file again on one thread
                        rollBack()
                        let again = try FeedReader(path: path, seqBase: seqBase) { r in counter.add(); onReject?(r) }
                        try consumeSequential(path, again)
                    }
                } else {
                    try consumeSequential(path, reader)
                }
                summary.rowsRead += counter.value - marks.rejects
            } catch let e as IngestError {
                // the file is rejected whole: drop everything it contributed
                summary.filesRejected += 1
                rollBack()
                if options.strict { throw IngestError.strict("--strict: \(e); nothing committed") }
                options.onMessage?("error: \(e); file skipped, nothing from it is loaded")
            }
            if options.strict && rejectCounter.value > 0 {
                throw IngestError.strict("--strict: \(rejectCounter.value) row\(rejectCounter.value == 1 ? "" : "s") rejected; nothing committed")
            }
        }
        try flushAll()
    }

    /// Parses `reader` on a second thread while this one routes and spills.
    private func consumeSequential(_ path: String, _ reader: FeedReader) throws {
        let batchRows = options.batchRows
        try consume(path, pieces: 1) { pipe in
            Thread.detachNewThread {
                do throws(IngestError) {
                    while let b = try reader.next(maxRows: batchRows) { if !pipe.put(.batch(b, reader.input.bytesRead)) { return } }
                    pipe.put(.end)
                } catch {
                    pipe.put(.failed(error))
                }
            }
        }
        summary.bytesRead += reader.input.bytesRead
    }

    /// Routes the batches that `producers` put into a pipe until `pieces` ends arrive.
    private func consume(_ path: String, pieces: Int, _ producers: (BatchPipe) -> Void) throws {
        let pipe = BatchPipe(capacity: 2 + 2 * pieces)
        defer { pipe.close() }
        producers(pipe)
        var ended = 0
        while ended < pieces {
            switch pipe.take() {
            case .batch(let batch, let fileBytes):
                summary.rowsRead += batch.count
                try route(batch)
                options.onProgress?(LoadProgress(bytesRead: summary.bytesRead + fileBytes, totalBytes: nil,
                                                 rows: summary.rowsRead + rejectCounter.value,
                                                 elapsedSeconds: Date().timeIntervalSince(start), phase: "reading \(path)"))
            case .end: ended += 1
            case .failed(let e): throw e
            }
        }
    }

    private func route(_ batch: RowBatch) throws {
        let times = batch.ints[Column.time.rawValue]
        var lo: Int64 = 1, hi: Int64 = 0, ord = 0
        // runs of consecutive rows in one partition are copied as ranges: feeds are time-ordered,
        // so a batch is a few runs
        var runStart = 0
        var runOrd = Int.min
        for i in 0...batch.count {
            if i < batch.count {
                let t = times[i]
                if !(t >= lo && t < hi) {
                    ord = partitioning.ordinal(t)
                    lo = partitioning.start(ordinal: ord)
                    hi = partitioning.start(ordinal: ord + 1)
                }
                if ord == runOrd { continue }
            }
            if runOrd != Int.min {
                partBuffers[runOrd, default: RowBatch()].append(contentsOf: batch, range: runStart..<i)
                bufferedRows += i - runStart
                if partBuffers[runOrd]!.count >= 16384 { try flushPartition(runOrd) }
            }
            runStart = i
            runOrd = ord
        }
        if bufferedRows > 262_144 { try flushPartitions() }
        let ids = batch.text[Column.id.rawValue]
        let upd = batch.ints[Column.updated.rawValue]
        ids.bytes.withUnsafeBytes { b in
            for i in 0..<batch.count {
                let p = UnsafeRawBufferPointer(rebasing: b[ids.range(i)])
                idBuffers[IdRecords.bucket(p)].append(id: p, time: times[i], updated: upd[i], seq: batch.seq[i])
            }
        }
        for b in 0..<idBuffers.count where idBuffers[b].count >= 16384 { try flushIds(b) }
    }

    private func partSpill(_ o: Int) throws -> SpillFile {
        if let s = partSpills[o] { return s }
        let s = try SpillFile(path: "\(tmp)/part-\(o).spill")
        partSpills[o] = s
        return s
    }

    private func flushPartition(_ o: Int) throws {
        guard let b = partBuffers[o], b.count > 0 else { return }
        try partSpill(o).append(b.serialized())
        bufferedRows -= b.count
        partBuffers[o] = nil
    }

    private func flushPartitions() throws {
        for o in Array(partBuffers.keys) { try flushPartition(o) }
    }

    private func flushIds(_ b: Int) throws {
        guard idBuffers[b].count > 0 else { return }
        try idSpills[b].append(idBuffers[b].serialized())
        idBuffers[b] = IdRecords()
    }

    private func flushAll() throws {
        try flushPartitions()
        for b in 0..<idBuffers.count { try flushIds(b) }
    }

    // MARK: pass 2: resolve

    /// Per source partition, the ids to move out and their destination partition.
    typealias Moves = [Int: [(id: [UInt8], to: Int)]]

    private var newBuckets: [Int: String?] = [:]

    private func resolve() throws -> Moves {
        let results = try parallelMap(Array(0..<Manifest.idBucketCount)) { b in try self.resolveBucket(b) }
        var moves: Moves = [:]
        for (b, r) in results.enumerated() {
            summary.new += r.new
            if r.repeated > 0 { loadRepeatsIds = true }
            if let file = r.file { newBuckets[b] = file }
            for (o, list) in r.moves { moves[o, default: []].append(contentsOf: list) }
        }
        return moves
    }

    /// Set by resolve when some id has more than one version among the stored and new records;
    /// when it stays false, merge only concatenates and sorts (the bulk path).
    private var loadRepeatsIds = false

    private struct BucketResult {
        var new = 0
        /// Records beyond the first of each id.
        var repeated = 0
        var file: String?
        var moves: Moves = [:]
    }

    private func resolveBucket(_ b: Int) throws -> BucketResult {
        var result = BucketResult()
        guard idSpills[b].size > 0 else { return result }
        var all = IdRecords()
        if let f = old.idBuckets[b] {
            let stored = try IdRecords.read(path: storePath + "/ids/" + f)
            for i in 0..<stored.count {
                all.append(from: stored, i)
                all.seq[all.count - 1] = Int64.min
            }
        }
        let storedCount = all.count
        try idSpills[b].forEach { p in
            let r = try IdRecords(serialized: p)
            for i in 0..<r.count { all.append(from: r, i) }
        }
        var interner = SliceInterner(capacity: all.count)
        var winner: [Int] = []
        var code = [Int](repeating: 0, count: all.count)
        all.ids.bytes.withUnsafeBytes { raw in
            for i in 0..<all.count {
                let k = interner.intern(UnsafeRawBufferPointer(rebasing: raw[all.ids.range(i)]))
                code[i] = k
                if k == winner.count { winner.append(i); continue }
                let w = winner[k]
                if all.updated[i] > all.updated[w] || (all.updated[i] == all.updated[w] && all.seq[i] > all.seq[w]) { winner[k] = i }
            }
        }
        result.new = interner.count - storedCount
        result.repeated = all.count - interner.count
        var out = IdRecords()
        for k in 0..<interner.count { out.append(from: all, winner[k]) }
        var seen = Set<Int64>()   // (code, source partition) pairs already listed
        for i in 0..<all.count {
            let w = winner[code[i]]
            if i == w { continue }
            let from = partitioning.ordinal(all.time[i]), to = partitioning.ordinal(all.time[w])
            if from != to && seen.insert(Int64(code[i]) << 32 | Int64(from & 0xFFFF_FFFF)).inserted {
                result.moves[from, default: []].append((Array(all.ids.bytes[all.ids.range(i)]), to))
            }
        }
        // stored ids come first, so code k < storedCount is stored record k
        let same = out.count == storedCount && (0..<storedCount).allSatisfy { k in
            all.time[winner[k]] == all.time[k] && all.updated[winner[k]] == all.updated[k]
        }
        if same {
            result.file = old.idBuckets[b]   // every stored version still wins: keep the file
            return result
        }
        let name = String(format: "%02d.g%d.idx", b, generation)
        try FileIO.writeFile(storePath + "/ids/" + name, out.fileBytes())
        result.file = name
        return result
    }

    // MARK: pass 3: merge

    private func merge(_ moves: inout Moves) throws -> [Int: PartitionEntry?] {
        let existing = Dictionary(uniqueKeysWithValues: old.partitions.map { (partitioning.ordinal($0.minTime), $0) })
        // carry moved rows to their destination first, so every destination sees them
        var movedOut: [Int: SliceInterner] = [:]
        for (from, list) in moves.sorted(by: { $0.key < $1.key }) {
            var ids = SliceInterner(capacity: list.count)
            var dest: [Int] = []
            for m in list { m.id.withUnsafeBytes { _ = ids.intern($0) }; dest.append(m.to) }
            var carried: [Int: [Int]] = [:]
            let rows = try rowsOf(from, existing: existing[from])
            rows.text[Column.id.rawValue].bytes.withUnsafeBytes { raw in
                let a = rows.text[Column.id.rawValue]
                for i in 0..<rows.count {
                    if let k = ids.lookup(UnsafeRawBufferPointer(rebasing: raw[a.range(i)])) { carried[dest[k], default: []].append(i) }
                }
            }
            for (to, idx) in carried { try partSpill(to).append(rows.gather(idx).serialized()) }
            movedOut[from] = ids
        }
        let touched = Set(partSpills.keys).union(moves.keys).sorted()
        let results = try parallelMap(touched) { o in
            (o, try self.mergePartition(o, existing: existing[o], movedOut: movedOut[o]))
        }
        var out: [Int: PartitionEntry?] = [:]
        for (o, r) in results {
            summary.updated += r.updated
            summary.unchanged += r.unchanged
            if r.changed { out[o] = r.entry }
        }
        return out
    }

    /// Stored rows of partition `o` followed by its spilled rows.
    private func rowsOf(_ o: Int, existing: PartitionEntry?) throws -> RowBatch {
        var rows = RowBatch()
        if let e = existing { rows = try PartitionReader(storePath: storePath, entry: e).readAll() }
        if let s = partSpills[o] {
            try s.forEach { p in rows.append(contentsOf: try RowBatch(serialized: p)) }
        }
        return rows
    }

    private struct MergeResult {
        var changed = false
        var entry: PartitionEntry?
        var updated = 0
        var unchanged = 0
    }

    private func mergePartition(_ o: Int, existing: PartitionEntry?, movedOut: SliceInterner?) throws -> MergeResult {
        let rows = try rowsOf(o, existing: existing)
        let storedRows = existing?.rows ?? 0
        var result = MergeResult()
        if !loadRepeatsIds && movedOut == nil {
            // bulk path: every row is a distinct event, so nothing to fold; sort unless in order
            guard rows.count > storedRows else { return result }
            result.changed = true
            result.entry = try write(rows.isTimeIdOrdered() ? rows : rows.gather(rows.timeIdOrder()), partition: o)
            return result
        }
        let ids = rows.text[Column.id.rawValue]
        var interner = SliceInterner(capacity: rows.count)
        var groups: [[Int]] = []
        ids.bytes.withUnsafeBytes { raw in
            for i in 0..<rows.count {
                let p = UnsafeRawBufferPointer(rebasing: raw[ids.range(i)])
                if let m = movedOut, m.lookup(p) != nil { result.changed = true; continue }
                let k = interner.intern(p)
                if k == groups.count { groups.append([i]) } else { groups[k].append(i) }
            }
        }
        // single-version events are kept by index and gathered once; only events with several
        // versions are folded row by row
        var keep: [Int] = []
        keep.reserveCapacity(rows.count)
        var folded = RowBatch()
        for g in groups {
            if g.count == 1 {
                keep.append(g[0])
                if g[0] >= storedRows { result.changed = true }
                continue
            }
            let upd = rows.ints[Column.updated.rawValue]
            let order = g.sorted { a, b in upd[a] != upd[b] ? upd[a] < upd[b] : rows.seq[a] < rows.seq[b] }
            var acc = RowBatch()
            acc.append(from: rows, row: order[0])
            for j in order.dropFirst() {
                var next = RowBatch()
                next.appendMerged(older: acc, 0, newer: rows, j)
                acc = next
            }
            let storedHere = g.first { $0 < storedRows }
            let storedAnywhere = g.contains { rows.seq[$0] == Int64.min }
            if let s = storedHere, acc.sameContent(0, rows, s) {
                result.unchanged += 1
                keep.append(s)
            } else {
                if storedAnywhere { result.updated += 1 }
                result.changed = true
                folded.append(from: acc, row: 0)
            }
        }
        if !result.changed || keep.count + folded.count == 0 { return result }
        let sorted: RowBatch
        if folded.count == 0 {
            sorted = rows.gather(rows.timeIdOrder(of: keep))
        } else {
            var final = rows.gather(keep)
            final.append(contentsOf: folded)
            sorted = final.gather(final.timeIdOrder())
        }
        result.entry = try write(sorted, partition: o)
        return result
    }

    private func write(_ sorted: RowBatch, partition o: Int) throws -> PartitionEntry {
        let key = partitioning.key(ordinal: o)
        let file = "\(key).g\(generation).\(PartitionFile.fileExtension)"
        return try PartitionWriter.write(sorted, key: key, file: file, storePath: storePath, blockRows: old.blockRows)
    }

    private func newManifest(_ changed: [Int: PartitionEntry?]) -> Manifest {
        var m = old
        m.generation = generation
        var byOrd = Dictionary(uniqueKeysWithValues: old.partitions.map { (partitioning.ordinal($0.minTime), $0) })
        for (o, e) in changed { byOrd[o] = e }
        m.partitions = byOrd.keys.sorted().compactMap { byOrd[$0] }
        m.rows = m.partitions.reduce(0) { $0 + $1.rows }
        for (b, f) in newBuckets { m.idBuckets[b] = f }
        m.retired = Array(old.liveFiles.subtracting(m.liveFiles)).sorted()
        return m
    }
}

