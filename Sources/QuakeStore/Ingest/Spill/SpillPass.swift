import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// Pass 1 of a load: parse every file in batches and stage the rows on disk, one spill per time
/// partition, and `(id, time, updated, seq)` records one spill per id-hash bucket, so memory
/// stays bounded by batch size. A file that fails is rolled back out of the spills whole.
package final class SpillPass {
    /// Rows a partition buffer collects before it becomes one spill frame.
    package static let partitionFrameRows = 16384
    /// Rows all partition buffers may hold together before every one is flushed.
    package static let bufferedRowsLimit = 262_144
    /// Id records a bucket buffer collects before it becomes one spill frame.
    package static let idFrameRows = 16384

    package let spills: SpillSet
    package let partitioning: Partitioning
    package let options: LoadOptions
    package let start: Date
    /// New partitions written from the batches instead of spilled; nil spills every row.
    package let direct: DirectPartitions?
    private var partBuffers: [Int: RowBatch] = [:]
    private var bufferedRows = 0
    private var idBuffers: [IdRecords]
    private var summary = LoadSummary()
    /// The input files' bytes, for the read phase's progress total (nil for stdin).
    private var totalBytes: Int?
    /// Row rejects of files then rejected whole: reported, but not counted in the summary.
    private var droppedRejects = 0
    private let rejectCounter = Counter()

    /// Counts rejects from the parsing threads.
    package final class Counter: Sendable {
        private let n = Atomic(0)
        package func add() { n.wrappingAdd(1, ordering: .sequentiallyConsistent) }
        package var value: Int { n.load(ordering: .sequentiallyConsistent) }
    }

    package init(spills: SpillSet, partitioning: Partitioning, options: LoadOptions, start: Date,
                 direct: DirectPartitions? = nil) {
        self.spills = spills
        self.direct = direct
        self.partitioning = partitioning
        self.options = options
        self.start = start
        idBuffers = Array(repeating: IdRecords(), count: Manifest.idBucketCount)
        direct?.spill = { [unowned self] o, rows in try self.spillRows(o, rows) }
    }

    /// Reads every file and stages its rows; returns the counts so far (files, rows, bytes,
    /// rejects).
    package func run(_ files: [String]) throws -> LoadSummary {
        defer { direct?.wait() }
        // the read phase's total: the input files' bytes as stored (unknown for stdin)
        totalBytes = files.contains("-") ? nil : files.reduce(0) { $0 + FileIO.size($1) }
        for (fi, path) in files.enumerated() {
            summary.files += 1
            try flushAll()
            let marks = spills.marks
            let before = (rows: summary.rowsRead, rejects: rejectCounter.value, bytes: summary.bytesRead,
                          deleted: summary.deletedRows, maxUpdated: summary.maxUpdated)
            let counter = rejectCounter
            let onReject = options.onReject
            let seqBase = Int64(fi + 1) << 40
            func rollBack() throws(QuakeError) {
                summary.rowsRead = before.rows
                summary.bytesRead = before.bytes
                summary.deletedRows = before.deleted
                summary.maxUpdated = before.maxUpdated
                partBuffers = [:]
                bufferedRows = 0
                for b in 0..<idBuffers.count { idBuffers[b] = IdRecords() }
                try spills.truncate(to: marks)
                try direct?.rollBack()
            }
            do {
                let warn = options.onMessage
                let rules = FieldRules(timeFormat: options.timeFormat, fixText: options.fixText, names: options.optionNames)
                var met = FieldRules()
                var cutShort = false
                let reader = try FeedReader(path: path, seqBase: seqBase, timeUnit: options.timeUnit, strict: options.strict,
                                            rules: rules, onWarning: { warn?("warning: \($0)") }) { r in
                    counter.add()
                    onReject?(r)
                }
                for w in reader.warnings { options.onMessage?("warning: \(w)") }
                if let split = SplitParse(path: path, reader: reader, seqBase: seqBase, workers: options.parseWorkers,
                                          minimumBytes: options.splitBytes, chunkBytes: options.splitChunkBytes) {
                    split.start(batchRows: options.batchRows)
                    defer { split.close() }
                    try consume(path, pieces: split.pieceCount, take: split.take)
                    if split.cutsWereRight {
                        cutShort = split.endedWithoutNewline
                        for w in split.warnings { warn?("warning: \(w)") }
                        for r in split.rejects { counter.add(); onReject?(r) }
                        summary.bytesRead += reader.input.fileSize ?? 0
                        met = split.rulesMet
                    } else {
                        // a quoted newline straddled a cut (or a GeoJSON piece failed, or settled on
                        // another time unit): parse the file again on one thread
                        try rollBack()
                        let again = try FeedReader(path: path, seqBase: seqBase, timeUnit: options.timeUnit,
                                                   strict: options.strict, rules: rules) { r in counter.add(); onReject?(r) }
                        (met, cutShort) = try consumeSequential(path, again)
                    }
                } else {
                    (met, cutShort) = try consumeSequential(path, reader)
                }
                if cutShort {
                    // USGS CSV files end with a newline: one without may have been cut off mid-row
                    let what = "the last line has no newline: the file may be truncated"
                    if options.strict { throw QuakeError(.format, path: path, detail: what) }
                    warn?("warning: \(path): \(what) (\(options.optionNames.strict) refuses it)")
                }
                try direct?.endFile()
                summary.rowsRead += counter.value - before.rejects
                var file = FileLoad(path: path)
                file.rows = summary.rowsRead - before.rows
                file.rejected = counter.value - before.rejects
                file.bytes = summary.bytesRead - before.bytes
                file.garbledText = met.garbled
                file.repairedText = met.repaired
                if met.garbled > 0, let sample = met.firstGarbled {
                    let fixed = met.repaired == met.garbled ? "; all repaired"
                        : options.fixText ? "; \(met.garbled - met.repaired) could not be repaired (a byte was lost)"
                        : "; they never replace a stored text they garble; \(options.optionNames.fixText) repairs them on load"
                    options.onMessage?("warning: \(path): \(met.garbled) text field\(met.garbled == 1 ? "" : "s") hold "
                        + "double-encoded UTF-8 (mojibake), such as '\(sample)'\(fixed)")
                }
                if file.loadedNothing { summary.filesRejected += 1 }
                summary.perFile.append(file)
            } catch let e as QuakeError where !writesStore(e) {
                // the file is rejected whole: drop everything it contributed, its row rejects included
                summary.filesRejected += 1
                droppedRejects += counter.value - before.rejects
                try rollBack()
                var file = FileLoad(path: path)
                file.error = "\(e)"
                summary.perFile.append(file)
                if options.strict { throw QuakeError.strict("\(e); nothing committed") }
                options.onMessage?("error: \(e); file skipped, nothing from it is loaded")
            }
            if options.strict && rejectCounter.value > 0 { throw Loader.strictFailure(rejected: rejectCounter.value) }
        }
        try flushAll()
        try direct?.writeAll()
        summary.rejected = rejectCounter.value - droppedRejects
        return summary
    }

    /// Whether `e` is a failure to write the store's own files (a full disk, say): that fails
    /// the load, where a bad input file is only skipped.
    private func writesStore(_ e: QuakeError) -> Bool {
        guard let path = e.path else { return false }
        let root = direct?.storePath ?? (spills.directory as NSString).deletingLastPathComponent
        return path.hasPrefix(root + "/")
    }

    /// Parses `reader` on a second thread while this one routes and spills; returns what the
    /// reader met: its text rules, and whether the file's last line had no newline.
    private func consumeSequential(_ path: String, _ reader: sending FeedReader) throws
        -> (rulesMet: FieldRules, endedWithoutNewline: Bool) {
        let batchRows = options.batchRows
        let pipe = BatchPipe(capacity: 4)
        defer { pipe.close() }
        // the parsing thread has the reader batch by batch; this one asks it only after its end
        let parser = Exclusive(reader)
        Thread.detachNewThread {
            do throws(QuakeError) {
                while let (b, read) = try parser.locked({ (r) throws(QuakeError) in
                    try r.next(maxRows: batchRows).map { ($0, r.input.bytesRead) }
                }) {
                    if !pipe.put(.batch(b, read)) { return }
                }
                pipe.put(.end)
            } catch {
                pipe.put(.failed(error))
            }
        }
        try consume(path, pieces: 1, take: pipe.take)
        let (read, rules, cutShort) = parser.locked { ($0.input.bytesRead, $0.rulesMet, $0.endedWithoutNewline) }
        summary.bytesRead += read
        return (rules, cutShort)
    }

    /// Routes the batches `take` gives, in file order, until `pieces` ends arrive.
    private func consume(_ path: String, pieces: Int, take: () -> BatchItem) throws {
        var ended = 0
        // the pieces of a split parse count their bytes in one total but are read ahead of the
        // batch taken: progress reports the most read so far, so it never goes back
        var fileRead = 0
        while ended < pieces {
            switch take() {
            case .batch(let batch, let fileBytes):
                summary.rowsRead += batch.count
                summary.deletedRows += batch.text[Column.status.rawValue].count(of: ByteArena.deletedStatus)
                if let m = batch.ints[Column.updated.rawValue].max(), m != RowBatch.null {
                    summary.maxUpdated = max(summary.maxUpdated ?? m, m)
                }
                try route(batch)
                fileRead = max(fileRead, fileBytes)
                let read = summary.bytesRead + fileRead
                options.onProgress?(LoadProgress(phase: .read, done: read, total: totalBytes.map { max($0, read) },
                                                 bytesRead: read,
                                                 rows: summary.rowsRead + rejectCounter.value,
                                                 elapsedSeconds: Date().timeIntervalSince(start)))
            case .end: ended += 1
            case .failed(let e): throw e
            }
        }
    }

    private func route(_ batch: RowBatch) throws {
        try options.checkCancelled()
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
            if runOrd != Int.min, let direct, direct.takes(runOrd) {
                try direct.append(batch, range: runStart..<i, partition: runOrd)
            } else if runOrd != Int.min {
                partBuffers[runOrd, default: RowBatch()].append(contentsOf: batch, range: runStart..<i)
                bufferedRows += i - runStart
                if (partBuffers[runOrd]?.count ?? 0) >= SpillPass.partitionFrameRows { try flushPartition(runOrd) }
            }
            runStart = i
            runOrd = ord
        }
        if bufferedRows > SpillPass.bufferedRowsLimit { try flushPartitions() }
        let ids = batch.text[Column.id.rawValue]
        let upd = batch.ints[Column.updated.rawValue]
        // SAFETY: `b` is the id column's bytes for the closure's span; a row batch holds one id per
        // row, and each of the arena's ranges lies inside its bytes (ends ascend to bytes.count).
        assert(ids.count >= batch.count && (ids.ends.last ?? 0) <= ids.bytes.count)
        ids.bytes.withUnsafeBytes { b in
            for i in 0..<batch.count {
                let p = UnsafeRawBufferPointer(rebasing: b[ids.range(i)])
                idBuffers[IdRecords.bucket(p)].append(id: p, time: times[i], updated: upd[i], seq: batch.seq[i])
            }
        }
        for b in 0..<idBuffers.count where idBuffers[b].count >= SpillPass.idFrameRows {
            try options.checkCancelled()
            try flushIds(b)
        }
    }

    private func flushPartition(_ o: Int) throws {
        guard let b = partBuffers[o], b.count > 0 else { return }
        try spills.partition(o).append(b.serialized())
        bufferedRows -= b.count
        partBuffers[o] = nil
    }

    /// Spills `rows` of partition `o` in frames of ``partitionFrameRows``.
    private func spillRows(_ o: Int, _ rows: RowBatch) throws {
        for start in stride(from: 0, to: rows.count, by: SpillPass.partitionFrameRows) {
            try options.checkCancelled()
            var b = RowBatch()
            b.append(contentsOf: rows, range: start..<min(rows.count, start + SpillPass.partitionFrameRows))
            try spills.partition(o).append(b.serialized())
        }
    }

    /// Spills every buffered partition: a load of scattered times buffers a frame for each of
    /// hundreds of partitions, so a cancel is asked before each one, not once for them all.
    private func flushPartitions() throws {
        for o in Array(partBuffers.keys) {
            try options.checkCancelled()
            try flushPartition(o)
        }
    }

    private func flushIds(_ b: Int) throws {
        guard idBuffers[b].count > 0 else { return }
        try spills.idBuckets[b].append(idBuffers[b].serialized())
        idBuffers[b] = IdRecords()
    }

    private func flushAll() throws {
        try flushPartitions()
        for b in 0..<idBuffers.count { try flushIds(b) }
    }
}
