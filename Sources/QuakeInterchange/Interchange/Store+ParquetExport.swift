import QuakeFormat
import QuakeStore
/// How an export lays out its Parquet files.
package enum ParquetLayout: String, Sendable, CaseIterable {
    /// `DIR/year=2011/part-0.parquet`
    case year
    /// `DIR/year=2011/month=3/part-0.parquet`
    case month
    /// `DIR/part-0.parquet`
    case none
}

/// What ``Store/exportParquet(to:layout:filter:columns:rowGroupRows:)`` wrote.
package struct ParquetExportSummary: Sendable {
    package var files: [String] = []
    package var rows = 0
    package var bytes = 0
}

extension Store {
    /// Rows per Parquet row group.
    package static let parquetRowGroupRows = 128 * 1024

    /// Writes the events `filter` matches as a hive-partitioned Parquet data set under `dir`,
    /// in (time, id) order: zstd pages, dictionary-encoded categories, row groups of
    /// `rowGroupRows` (1 to 4,194,304) with min, max and null counts, `time` and `updated` as
    /// `TIMESTAMP(MILLIS, UTC)`, numbers as `DOUBLE`, strings as UTF-8.
    ///
    /// Memory holds two store partitions and one row group. Each file is written under a hidden
    /// temporary name; once all are complete, one file-system sync makes them durable and they
    /// are renamed into place, so a killed or failed export leaves no file under a final name.
    /// - Complexity: one pass over the matching partitions.
    package func exportParquet(to dir: String, layout: ParquetLayout = .month, filter: Filter = .all,
                              columns: [Column] = Column.allCases,
                              rowGroupRows: Int = Store.parquetRowGroupRows) throws -> ParquetExportSummary {
        // at most 4 M rows per group: page headers and dictionary indices stay far inside 32 bits
        let groupRows = Swift.min(Swift.max(1, rowGroupRows), 1 << 22)
        let export = ParquetExportRun(directory: dir, columns: columns, groupRows: groupRows)
        do {
            try Self.prepareParquetDirectory(dir)
            // the next partition is read on another thread while this one is encoded
            let parts = manifest.partitions
            let prefetch = PartitionPrefetch(count: parts.count) { [self] k in
                defer { dropReader(parts[k]) }
                return try rows(of: parts[k], filter: filter, columns: columns)
            }
            for k in parts.indices {
                try export.append(try prefetch.take(k), layout: layout)
            }
            try export.close()
            try export.publish()
        } catch {
            export.abandon()
            throw error
        }
        return export.summary
    }

    /// Makes `dir`, which must be new or an empty directory.
    private static func prepareParquetDirectory(_ dir: String) throws {
        if FileIO.exists(dir) && !FileIO.isDirectory(dir) {
            throw QuakeError.io(dir, "not a directory; a Parquet export writes a new or empty directory")
        }
        try FileIO.makeDirectory(dir)
        guard FileIO.list(dir).isEmpty else {
            throw QuakeError.io(dir, "not empty; export into a new or empty directory")
        }
    }

    /// The rows of one partition that `filter` matches, in (time, id) order.
    package func rows(of entry: PartitionEntry, filter: Filter, columns: [Column]) throws -> RowBatch {
        if case .all = filter { return try reader(entry).readAll() }
        let range = Filter.timeRange(
            .time,
            lower: entry.minTime,
            upper: entry.maxTime == .max ? nil : entry.maxTime + 1
        )
        let spec = QuerySpec(filter: .conjunction([filter, range]), sort: [SortKey(.time), SortKey(.id)])
        return try query(spec, columns: Array(Set(columns).union([.time]))).batch
    }

    /// `year=2011` or `year=2011/month=3` for a time (empty for `.none`), and the first time
    /// past that bucket.
    package static func hiveBucket(_ time: Int64, _ layout: ParquetLayout) -> (key: String, end: Int64) {
        if layout == .none { return ("", .max) }
        let day = Int((time >= 0 ? time : time - 86_400_000 + 1) / 86_400_000)
        let (civilYear, civilMonth, _) = Timestamp.civil(days: day)
        let year = "year=" + String(civilYear)
        if layout == .year {
            return (year, Int64(Timestamp.days(year: civilYear + 1, month: 1, day: 1)) * 86_400_000)
        }
        let next = civilMonth == 12
            ? Timestamp.days(year: civilYear + 1, month: 1, day: 1)
            : Timestamp.days(year: civilYear, month: civilMonth + 1, day: 1)
        // no leading zero: `month=3`, as Spark writes it, so that readers type it as an integer
        // as they do `year`
        return (year + "/month=" + String(civilMonth), Int64(next) * 86_400_000)
    }
}

/// One Parquet export under way: the open file and its hive key, the rows waiting for a full
/// row group, and the files completed under their temporary names.
private final class ParquetExportRun {
    let directory: String
    let columns: [Column]
    let groupRows: Int
    var summary = ParquetExportSummary()
    var writer: ParquetFileWriter?
    var key = ""
    var pending = RowBatch()
    var done: [(temporary: String, path: String)] = []

    init(directory: String, columns: [Column], groupRows: Int) {
        self.directory = directory
        self.columns = columns
        self.groupRows = groupRows
    }

    /// Adds one partition's rows, opening a new file at each change of hive bucket.
    func append(_ batch: RowBatch, layout: ParquetLayout) throws {
        var at = 0
        let times = batch.ints[Column.time.rawValue]
        while at < batch.count {
            let (bucket, until) = Store.hiveBucket(times[at], layout)
            var end = at + 1
            while end < batch.count && times[end] < until { end += 1 }
            if writer == nil || bucket != key {
                try close()
                key = bucket
                let sub = bucket.isEmpty ? directory : directory + "/" + bucket
                try FileIO.makeDirectory(sub)
                writer = try ParquetFileWriter(path: sub + "/part-0.parquet", columns: columns)
            }
            pending.append(contentsOf: batch, range: at..<end)
            try flush(false)
            at = end
        }
    }

    /// Writes full row groups of the pending rows, and with `all` the rest as well.
    func flush(_ all: Bool) throws {
        guard let fileWriter = writer else { return }
        var start = 0
        while pending.count - start >= groupRows || (all && start < pending.count) {
            let end = Swift.min(pending.count, start + groupRows)
            try fileWriter.write(pending, rows: start..<end)
            start = end
        }
        if start > 0 {
            var rest = RowBatch()
            rest.append(contentsOf: pending, range: start..<pending.count)
            pending = rest
        }
    }

    /// Writes what is pending and completes the open file under its temporary name.
    func close() throws {
        try flush(true)
        guard let fileWriter = writer else { return }
        try fileWriter.complete(sync: false)
        done.append((fileWriter.temporary, fileWriter.finalPath))
        summary.files.append(fileWriter.path)
        summary.rows += fileWriter.rows
        summary.bytes += FileIO.size(fileWriter.temporary)
        writer = nil
    }

    /// One sync for every file, then the final names: all of them appear, or none.
    func publish() throws {
        try FileIO.syncFilesystem(directory)
        for file in done { try FileIO.rename(file.temporary, file.path) }
        try FileIO.syncFilesystem(directory)
    }

    /// Removes the open file and every completed temporary file.
    func abandon() {
        writer?.abandon()
        for file in done { FileIO.remove(file.temporary) }
    }
}
