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
        var summary = ParquetExportSummary()
        var writer: ParquetFileWriter?
        var key = ""
        var pending = RowBatch()
        // at most 4 M rows per group: page headers and dictionary indices stay far inside 32 bits
        let groupRows = Swift.min(Swift.max(1, rowGroupRows), 1 << 22)
        func flush(_ all: Bool) throws {
            guard let w = writer else { return }
            var start = 0
            while pending.count - start >= groupRows || (all && start < pending.count) {
                let end = Swift.min(pending.count, start + groupRows)
                try w.write(pending, rows: start..<end)
                start = end
            }
            if start > 0 {
                var rest = RowBatch()
                rest.append(contentsOf: pending, range: start..<pending.count)
                pending = rest
            }
        }
        var done: [(temporary: String, path: String)] = []
        func close() throws {
            try flush(true)
            guard let w = writer else { return }
            try w.complete(sync: false)
            done.append((w.temporary, w.finalPath))
            summary.files.append(w.path)
            summary.rows += w.rows
            summary.bytes += FileIO.size(w.temporary)
            writer = nil
        }
        do {
            if FileIO.exists(dir) && !FileIO.isDirectory(dir) {
                throw QuakeError.io(dir, "not a directory; a Parquet export writes a new or empty directory")
            }
            try FileIO.makeDirectory(dir)
            guard FileIO.list(dir).isEmpty else {
                throw QuakeError.io(dir, "not empty; export into a new or empty directory")
            }
            // the next partition is read on another thread while this one is encoded
            let parts = manifest.partitions
            let prefetch = PartitionPrefetch(count: parts.count) { [self] k in
                defer { dropReader(parts[k]) }
                return try rows(of: parts[k], filter: filter, columns: columns)
            }
            for k in parts.indices {
                let batch = try prefetch.take(k)
                var at = 0
                let times = batch.ints[Column.time.rawValue]
                while at < batch.count {
                    let (k, until) = Store.hiveBucket(times[at], layout)
                    var end = at + 1
                    while end < batch.count && times[end] < until { end += 1 }
                    if writer == nil || k != key {
                        try close()
                        key = k
                        let sub = k.isEmpty ? dir : dir + "/" + k
                        try FileIO.makeDirectory(sub)
                        writer = try ParquetFileWriter(path: sub + "/part-0.parquet", columns: columns)
                    }
                    pending.append(contentsOf: batch, range: at..<end)
                    try flush(false)
                    at = end
                }
            }
            try close()
            // one sync for every file, then the final names: all of them appear, or none
            try FileIO.syncFilesystem(dir)
            for f in done { try FileIO.rename(f.temporary, f.path) }
            try FileIO.syncFilesystem(dir)
        } catch {
            writer?.abandon()
            for f in done { FileIO.remove(f.temporary) }
            throw error
        }
        return summary
    }

    /// The rows of one partition that `filter` matches, in (time, id) order.
    package func rows(of e: PartitionEntry, filter: Filter, columns: [Column]) throws -> RowBatch {
        if case .all = filter { return try reader(e).readAll() }
        let range = Filter.timeRange(.time, lower: e.minTime, upper: e.maxTime == .max ? nil : e.maxTime + 1)
        let q = QuerySpec(filter: .conjunction([filter, range]), sort: [SortKey(.time), SortKey(.id)])
        return try query(q, columns: Array(Set(columns).union([.time]))).batch
    }

    /// `year=2011` or `year=2011/month=3` for a time (empty for `.none`), and the first time
    /// past that bucket.
    package static func hiveBucket(_ t: Int64, _ layout: ParquetLayout) -> (key: String, end: Int64) {
        if layout == .none { return ("", .max) }
        let day = Int((t >= 0 ? t : t - 86_400_000 + 1) / 86_400_000)
        let (y, m, _) = Timestamp.civil(days: day)
        let year = "year=" + String(y)
        if layout == .year { return (year, Int64(Timestamp.days(year: y + 1, month: 1, day: 1)) * 86_400_000) }
        let next = m == 12 ? Timestamp.days(year: y + 1, month: 1, day: 1) : Timestamp.days(year: y, month: m + 1, day: 1)
        // no leading zero: `month=3`, as Spark writes it, so that readers type it as an integer as they do `year`
        return (year + "/month=" + String(m), Int64(next) * 86_400_000)
    }
}
