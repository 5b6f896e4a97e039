import ArgumentParser
import QuakeFormat
import QuakeStore
import QuakeInterchange

/// `--sort distance` and the `distance_km` field: events ordered by great-circle distance from
/// `--near`, nearest first (or farthest with `distance:desc`), events with no position last,
/// and the id breaking ties.
///
/// Two passes over one snapshot: the first reads id, latitude and longitude of every match and
/// keeps the best `offset + limit`; the second reads the kept rows' fields, a chunk at a time,
/// and puts them in that order. Memory holds the kept ids (all matches when there is no
/// `--limit`) and one chunk of rows.
extension QueryArgs {
    func validateDistance() throws {
        let center = try filters.center()
        let sorted = try page.distanceOrder() != nil
        let listed = listsDistance
        let how = "--near LAT,LON (or --latitude and --longitude)"
        if sorted && center == nil { throw ValidationError("--sort distance needs \(how)") }
        if listed && center == nil { throw ValidationError("--fields \(DistanceField.name) needs \(how)") }
        if filters.centerWithoutRadius && !sorted && !listed {
            throw ValidationError("--near LAT,LON needs --radius-km R "
                + "(or --sort distance, or \(DistanceField.name) in --fields)")
        }
        if listed && ![.table, .csv, .json, .ndjson, .geojson].contains(format) {
            throw ValidationError("--fields \(DistanceField.name): not with --format \(format.rawValue) "
                + "(table, csv, json, ndjson and geojson carry it)")
        }
    }

    /// Whether `--fields` names `distance_km`.
    var listsDistance: Bool {
        fields?.split(separator: ",").contains { $0.trimmingBlanks == DistanceField.name } ?? false
    }

    /// The `distance_km` field to write, placed where `--fields` puts it; the default table shows
    /// it (before the place) whenever a centre is given.
    func distanceField(shown: [Column]) throws -> DistanceField? {
        guard let centre = try filters.center() else { return nil }
        if let fields, listsDistance {
            let names = fields.split(separator: ",").map { $0.trimmingBlanks }
            let at = names.firstIndex(of: DistanceField.name) ?? names.count
            let before = names[..<at].filter { $0 != DistanceField.name }.count
            return DistanceField(latitude: centre.latitude, longitude: centre.longitude, position: before)
        }
        guard fields == nil, format == .table else { return nil }
        return DistanceField(latitude: centre.latitude, longitude: centre.longitude,
                             position: shown.firstIndex(of: .place) ?? shown.count)
    }

    /// Writes the page of `q` in distance order.
    func emitByDistance(_ s: Store, _ q: QuerySpec, center: (latitude: Double, longitude: Double), nearestFirst: Bool,
                        columns cols: [Column]?, writer: ResultWriter, to sink: OutputSink) throws {
        let snapshot = s.manifest
        var ranking = DistanceRanking(latitude: center.latitude, longitude: center.longitude,
                                      nearestFirst: nearestFirst, keep: q.limit.map { q.offset.saturatingAdd($0) })
        let scan = QuerySpec(filter: q.filter, sort: [SortKey(.time, ascending: false)])
        _ = try s.query(scan, columns: [.id, .latitude, .longitude], snapshot: snapshot,
                        begin: { _, _ in }, chunk: { ranking.add($0.batch) })
        let ranked = ranking.finish()
        let ids = Array(ranked.dropFirst(q.offset).prefix(q.limit ?? Int.max))
        let read = cols.map { Array(Set($0).union([.id, .latitude, .longitude])) }
        func fetch(_ some: ArraySlice<String>) throws -> QueryResult {
            try Self.rows(of: some, matching: q.filter, in: s, columns: read, snapshot: snapshot)
        }
        let step = Store.streamChunkRows
        switch format {
        case .table:
            var tableWriter = writer
            tableWriter.matched = ranking.seen
            tableWriter.write(try fetch(ids[...]), to: sink)
        case .parquet:
            guard let out else { return }
            let file = try ParquetResultFile(path: out, columns: writer.columns)
            do {
                for at in stride(from: 0, to: ids.count, by: step) {
                    try file.write(try fetch(ids[at..<min(ids.count, at + step)]))
                }
                try file.finish()
            } catch {
                file.abandon()
                throw error
            }
        default:
            let stream = writer.stream(to: sink)
            stream.begin(count: ids.count, cursor: nil, total: ranking.seen)
            for at in stride(from: 0, to: ids.count, by: step) {
                stream.rows(try fetch(ids[at..<min(ids.count, at + step)]))
            }
            stream.end()
        }
    }

    /// The rows of `some` ids that match `filter`, in the ids' order.
    private static func rows(of some: ArraySlice<String>, matching filter: Filter, in target: Store,
                             columns read: [Column]?, snapshot: Manifest) throws -> QueryResult {
        let idFilter = some.isEmpty ? Filter.none : .conjunction([filter, .ids(EventIdSet(some))])
        let byTime = QuerySpec(filter: idFilter, sort: [SortKey(.time, ascending: false)])
        var got: QueryResult?
        _ = try target.query(byTime, columns: read, chunkRows: Int.max, snapshot: snapshot, begin: { _, _ in },
                             chunk: { result in
            if got == nil { got = result } else { got?.batch.append(contentsOf: result.batch) }
        })
        guard var result = got else { return try target.query(byTime, columns: read) }
        var at: [String: Int] = [:]
        at.reserveCapacity(result.count)
        for i in 0..<result.count { at[result.batch.text[Column.id.rawValue].string(i) ?? ""] = i }
        result.batch = result.batch.gather(some.compactMap { at[$0] })
        return result
    }
}

/// The best `keep` matches by distance from a centre, with their ids: null positions last, then
/// the id, ascending.
struct DistanceRanking {
    /// The centre, and how a row's distance from it is worked out (the same as the output field's).
    let center: DistanceField
    let nearestFirst: Bool
    /// How many to keep (nil: all).
    let keep: Int?
    /// Matches seen.
    private(set) var seen = 0
    private var kept: [Entry] = []
    /// The worst entry kept after the last trim: rows ranking after it are skipped unread.
    private var worst: Entry?

    struct Entry {
        /// 0 with a position, 1 without.
        let missing: Int
        /// The distance, negated for farthest first.
        let key: Double
        let id: String
        func before(_ other: Entry) -> Bool { (missing, key, id) < (other.missing, other.key, other.id) }
        func before(missing otherMissing: Int, key otherKey: Double) -> Bool {
            (missing, key) < (otherMissing, otherKey)
        }
    }

    init(latitude: Double, longitude: Double, nearestFirst: Bool, keep: Int?) {
        center = DistanceField(latitude: latitude, longitude: longitude, position: 0)
        self.nearestFirst = nearestFirst
        self.keep = keep
    }

    mutating func add(_ batch: RowBatch) {
        seen += batch.count
        if keep == 0 { return }
        for i in 0..<batch.count {
            var missing = 1
            var key = 0.0
            if let km = center.km(batch, i) {
                missing = 0
                key = nearestFirst ? km : -km
            }
            // an entry that ranks after the worst kept one cannot make the page
            if let worst, worst.before(missing: missing, key: key) { continue }
            kept.append(Entry(missing: missing, key: key, id: batch.text[Column.id.rawValue].string(i) ?? ""))
            if let keep, kept.count >= 2 * max(keep, 1024) { trim(to: keep) }
        }
    }

    private mutating func trim(to n: Int) {
        kept.sort { $0.before($1) }
        if kept.count > n { kept.removeLast(kept.count - n) }
        worst = kept.count == n ? kept.last : nil
    }

    /// The kept ids, best first.
    mutating func finish() -> [String] {
        trim(to: keep ?? kept.count)
        return kept.map(\.id)
    }
}
