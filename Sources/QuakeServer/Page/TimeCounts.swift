import QuakeFormat
import QuakeStore

/// A view's events counted in time, for the page's Statistics panel: consecutive buckets of one
/// width from the window's start (the last one cut at the window's end), the width chosen for the
/// window's span so that a panel shows tens of bars: 5 minutes up to 3 hours, an hour up to 2 days,
/// 6 hours up to 8 days, a day beyond.
struct TimeCounts: Sendable, Equatable {
    /// The first bucket's first millisecond (the window's start).
    let start: Int64
    /// A bucket's width in milliseconds.
    let width: Int64
    /// The width in words: `5m`, `1h`, `6h` or `1d`.
    let unit: String
    /// The events of each bucket, in time order.
    private(set) var values: [Int]

    /// The widths, each with the longest span it is used for.
    static let widths: [(span: Int64, width: Int64, unit: String)] = [
        (3 * 3_600_000, 300_000, "5m"), (2 * 86_400_000, 3_600_000, "1h"),
        (8 * 86_400_000, 6 * 3_600_000, "6h"), (Int64.max, 86_400_000, "1d"),
    ]

    /// Empty buckets over `start..<end` (`end > start`).
    init(start: Int64, end: Int64) {
        let span = max(1, end - start)
        let choice = Self.widths.first { span <= $0.span } ?? Self.widths[Self.widths.count - 1]
        self.start = start
        width = choice.width
        unit = choice.unit
        let buckets = span / choice.width + (span % choice.width == 0 ? 0 : 1)
        values = Array(repeating: 0, count: Int(min(buckets, 100_000)))
    }

    /// Counts an event at `time`; a time outside the buckets is left out.
    mutating func add(_ time: Int64) {
        guard time >= start else { return }
        let index = (time - start) / width
        guard index < Int64(values.count) else { return }
        values[Int(index)] += 1
    }

    /// The events of `view` (its window, search, magnitude and region) per bucket, in `snap`.
    static func counted(_ view: ViewRequest, _ snap: SnapshotSource.Snapshot) throws -> TimeCounts {
        var counts = TimeCounts(start: view.start, end: view.end)
        _ = try snap.store.query(QuerySpec(filter: view.filter), columns: [.time], snapshot: snap.manifest,
                                 begin: { _, _ in }, chunk: { result in
            let times = result.batch.ints[Column.time.rawValue]
            for row in 0..<result.batch.count where times[row] != RowBatch.null {
                counts.add(times[row])
            }
        })
        return counts
    }

    /// The `counts` member of `/api/fmd`'s answer:
    /// `"counts":{"start":MS,"width":MS,"unit":"1h","values":[N,...]}`.
    var json: String {
        let numbers = values.map { String($0) }.joined(separator: ",")
        return "\"counts\":{\"start\":\(start),\"width\":\(width),\"unit\":\"\(unit)\",\"values\":[\(numbers)]}"
    }
}
