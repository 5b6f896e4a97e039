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
        private let count = Atomic(0)
        package func add() { count.wrappingAdd(1, ordering: .sequentiallyConsistent) }
        package var value: Int { count.load(ordering: .sequentiallyConsistent) }
    }

    package init(spills: SpillSet, partitioning: Partitioning, options: LoadOptions, start: Date,
                 direct: DirectPartitions? = nil) {
        self.spills = spills
        self.direct = direct
        self.partitioning = partitioning
        self.options = options
        self.start = start
        idBuffers = Array(repeating: IdRecords(), count: Manifest.idBucketCount)
        direct?.spill = { [unowned self] ordinal, rows in try self.spillRows(ordinal, rows) }
    }

    /// Reads every file and stages its rows; returns the counts so far (files, rows, bytes,
    /// rejects).
    package func run(_ files: [String]) throws -> LoadSummary {
        defer { direct?.wait() }
        // the read phase's total: the input files' bytes as stored (unknown for stdin)
        totalBytes = files.contains("-") ? nil : files.reduce(0) { $0 + FileIO.size($1) }
        for (fileIndex, path) in files.enumerated() {
            summary.files += 1
            try flushAll()
            try loadFile(path, seqBase: Int64(fileIndex + 1) << 40)
            if options.strict && rejectCounter.value > 0 { throw Loader.strictFailure(rejected: rejectCounter.value) }
        }
        try flushAll()
        try direct?.writeAll()
        summary.rejected = rejectCounter.value - droppedRejects
        return summary
    }

    /// The spills' ends and the counts before a file: what a file rejected whole rolls back to.
    private struct FileStart {
        let marks: SpillSet.Marks
        let rows: Int
        let rejects: Int
        let bytes: Int
        let deleted: Int
        let maxUpdated: Int64?
    }

    /// Stages one file's rows and records it in the summary; a bad file is rolled back out whole
    /// (and fails the load when strict).
    private func loadFile(_ path: String, seqBase: Int64) throws {
        let fileStart = FileStart(marks: spills.marks, rows: summary.rowsRead, rejects: rejectCounter.value,
                                  bytes: summary.bytesRead, deleted: summary.deletedRows,
                                  maxUpdated: summary.maxUpdated)
        let counter = rejectCounter
        do {
            let met = try parseFile(path, seqBase: seqBase, fileStart: fileStart)
            try direct?.endFile()
            summary.rowsRead += counter.value - fileStart.rejects
            var file = FileLoad(path: path)
            file.rows = summary.rowsRead - fileStart.rows
            file.rejected = counter.value - fileStart.rejects
            file.bytes = summary.bytesRead - fileStart.bytes
            file.garbledText = met.garbled
            file.repairedText = met.repaired
            if met.garbled > 0, let sample = met.firstGarbled { warnGarbled(path, met, sample: sample) }
            if file.loadedNothing { summary.filesRejected += 1 }
            summary.perFile.append(file)
        } catch let error as QuakeError where !writesStore(error) {
            // the file is rejected whole: drop everything it contributed, its row rejects included
            summary.filesRejected += 1
            droppedRejects += counter.value - fileStart.rejects
            try rollBack(to: fileStart)
            var file = FileLoad(path: path)
            file.error = "\(error)"
            summary.perFile.append(file)
            if options.strict { throw QuakeError.strict("\(error); nothing committed") }
            if let onFileSkipped = options.onFileSkipped {
                onFileSkipped(error)
            } else {
                options.onMessage?("error: \(error); file skipped, nothing from it is loaded")
            }
        }
    }

    /// Drops what the file begun at `fileStart` added to the counts, the buffers and the spills.
    private func rollBack(to fileStart: FileStart) throws(QuakeError) {
        summary.rowsRead = fileStart.rows
        summary.bytesRead = fileStart.bytes
        summary.deletedRows = fileStart.deleted
        summary.maxUpdated = fileStart.maxUpdated
        partBuffers = [:]
        bufferedRows = 0
        for bucket in 0..<idBuffers.count {
            idBuffers[bucket] = IdRecords()
        }
        try spills.truncate(to: fileStart.marks)
        try direct?.rollBack()
    }

    /// Parses and routes one file, on several threads when it splits; returns the text rules it
    /// met. Warns of (or, when strict, refuses) a last line without a newline.
    private func parseFile(_ path: String, seqBase: Int64, fileStart: FileStart) throws -> FieldRules {
        let counter = rejectCounter
        let onReject = options.onReject
        let warn = options.onMessage
        let rules = FieldRules(timeFormat: options.timeFormat, fixText: options.fixText, names: options.optionNames)
        var met = FieldRules()
        var cutShort = false
        let reader = try FeedReader(path: path, seqBase: seqBase, timeUnit: options.timeUnit, strict: options.strict,
                                    rules: rules, onWarning: { warn?("warning: \($0)") }) { reject in
            counter.add()
            onReject?(reject)
        }
        for warning in reader.warnings { options.onMessage?("warning: \(warning)") }
        if let split = SplitParse(path: path, reader: reader, seqBase: seqBase, workers: options.parseWorkers,
                                  minimumBytes: options.splitBytes, chunkBytes: options.splitChunkBytes) {
            split.start(batchRows: options.batchRows)
            defer { split.close() }
            try consume(path, pieces: split.pieceCount, take: split.take)
            if split.cutsWereRight {
                cutShort = split.endedWithoutNewline
                for warning in split.warnings { warn?("warning: \(warning)") }
                for reject in split.rejects {
                    counter.add()
                    onReject?(reject)
                }
                summary.bytesRead += reader.input.fileSize ?? 0
                met = split.rulesMet
            } else {
                // a quoted newline straddled a cut (or a GeoJSON piece failed, or settled on
                // another time unit): parse the file again on one thread
                try rollBack(to: fileStart)
                let again = try FeedReader(path: path, seqBase: seqBase, timeUnit: options.timeUnit,
                                           strict: options.strict, rules: rules) { reject in
                    counter.add()
                    onReject?(reject)
                }
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
        return met
    }

    /// Warns that `path` held double-encoded UTF-8 text, with a sample and what became of it.
    private func warnGarbled(_ path: String, _ met: FieldRules, sample: String) {
        let fixed = met.repaired == met.garbled ? "; all repaired"
            : options.fixText ? "; \(met.garbled - met.repaired) could not be repaired (a byte was lost)"
            : "; they never replace a stored text they garble; \(options.optionNames.fixText) repairs them on load"
        options.onMessage?("warning: \(path): \(met.garbled) text field\(met.garbled == 1 ? "" : "s") hold "
            + "double-encoded UTF-8 (mojibake), such as '\(sample)'\(fixed)")
    }

    /// Whether `error` is a failure to write the store's own files (a full disk, say): that fails
    /// the load, where a bad input file is only skipped.
    private func writesStore(_ error: QuakeError) -> Bool {
        guard let path = error.path else { return false }
        let root = direct?.storePath ?? (spills.directory as NSString).deletingLastPathComponent
        return path.hasPrefix(root + "/")
    }

    /// Rows a batch of `input` holds: `limit`, or for a small plain file about as many rows as
    /// it can hold at ``minimumRowBytes`` a row, so that a one-event file does not size its batch
    /// buffers for a large batch. A file of shorter rows only takes more batches.
    static func batchRows(_ limit: Int, for input: FeedInput) -> Int {
        guard input.compression == "none", let size = input.fileSize else { return limit }
        return min(limit, max(1, size / minimumRowBytes + 1))
    }

    /// Bytes a feed row takes at the least, in practice: a CSV row of the columns a load needs.
    static let minimumRowBytes = 24

    /// Parses `reader` on a second thread while this one routes and spills; returns what the
    /// reader met: its text rules, and whether the file's last line had no newline.
    private func consumeSequential(_ path: String, _ reader: sending FeedReader) throws
        -> (rulesMet: FieldRules, endedWithoutNewline: Bool) {
        let batchRows = Self.batchRows(options.batchRows, for: reader.input)
        let pipe = BatchPipe(capacity: 4)
        defer { pipe.close() }
        // the parsing thread has the reader batch by batch; this one asks it only after its end
        let parser = Exclusive(reader)
        Thread.detachNewThread {
            do throws(QuakeError) {
                while let (batch, read) = try parser.locked({ (reader) throws(QuakeError) in
                    try reader.next(maxRows: batchRows).map { ($0, reader.input.bytesRead) }
                }) {
                    if !pipe.put(.batch(batch, read)) { return }
                }
                pipe.put(.end)
            } catch {
                pipe.put(.failed(error))
            }
        }
        try consume(path, pieces: 1, take: { pipe.take() ?? .end })
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
                if let newest = batch.ints[Column.updated.rawValue].max(), newest != RowBatch.null {
                    summary.maxUpdated = max(summary.maxUpdated ?? newest, newest)
                }
                try route(batch)
                fileRead = max(fileRead, fileBytes)
                let read = summary.bytesRead + fileRead
                options.onProgress?(LoadProgress(phase: .read, done: read,
                                                 total: totalBytes.map { max($0, read) },
                                                 bytesRead: read,
                                                 rows: summary.rowsRead + rejectCounter.value,
                                                 elapsedSeconds: Date().timeIntervalSince(start)))
            case .end:
                ended += 1
            case .failed(let error):
                throw error
            }
        }
    }

    private func route(_ batch: RowBatch) throws {
        try options.checkCancelled()
        let times = batch.ints[Column.time.rawValue]
        var lo: Int64 = 1
        var hi: Int64 = 0
        var ord = 0
        // runs of consecutive rows in one partition are copied as ranges: feeds are time-ordered,
        // so a batch is a few runs
        var runStart = 0
        var runOrd = Int.min
        for i in 0...batch.count {
            if i < batch.count {
                let time = times[i]
                if !(time >= lo && time < hi) {
                    ord = partitioning.ordinal(time)
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
        // SAFETY: `bytes` is the id column's bytes for the closure's span; a row batch holds one id per
        // row, and each of the arena's ranges lies inside its bytes (ends ascend to bytes.count).
        assert(ids.count >= batch.count && (ids.ends.last ?? 0) <= ids.bytes.count)
        ids.bytes.withUnsafeBytes { bytes in
            for i in 0..<batch.count {
                let id = UnsafeRawBufferPointer(rebasing: bytes[ids.range(i)])
                idBuffers[IdRecords.bucket(id)].append(id: id, time: times[i], updated: upd[i], seq: batch.seq[i])
            }
        }
        for bucket in 0..<idBuffers.count where idBuffers[bucket].count >= SpillPass.idFrameRows {
            try options.checkCancelled()
            try flushIds(bucket)
        }
    }

    private func flushPartition(_ ordinal: Int) throws {
        guard let buffer = partBuffers[ordinal], buffer.count > 0 else { return }
        try spills.partition(ordinal).append(buffer.serialized())
        bufferedRows -= buffer.count
        partBuffers[ordinal] = nil
    }

    /// Spills `rows` of partition `ordinal` in frames of ``partitionFrameRows``.
    private func spillRows(_ ordinal: Int, _ rows: RowBatch) throws {
        for start in stride(from: 0, to: rows.count, by: SpillPass.partitionFrameRows) {
            try options.checkCancelled()
            var frame = RowBatch()
            frame.append(contentsOf: rows, range: start..<min(rows.count, start + SpillPass.partitionFrameRows))
            try spills.partition(ordinal).append(frame.serialized())
        }
    }

    /// Spills every buffered partition: a load of scattered times buffers a frame for each of
    /// hundreds of partitions, so a cancel is asked before each one, not once for them all.
    private func flushPartitions() throws {
        for ordinal in Array(partBuffers.keys) {
            try options.checkCancelled()
            try flushPartition(ordinal)
        }
    }

    private func flushIds(_ bucket: Int) throws {
        guard idBuffers[bucket].count > 0 else { return }
        try spills.idBuckets[bucket].append(idBuffers[bucket].serialized())
        idBuffers[bucket] = IdRecords()
    }

    private func flushAll() throws {
        try flushPartitions()
        for bucket in 0..<idBuffers.count {
            try flushIds(bucket)
        }
    }
}
