import Foundation
import QuakeFormat

/// Writes of ``Quake`` values, as an app that decodes quakes itself inserts them: each call is
/// one strict load, committed as one transaction (it shows in ``Store/history(since:identifiers:limit:)``),
/// and observers see it as they see a load.
extension Store {
    /// Inserts `quakes`, or replaces the stored versions of their ids, as one transaction.
    ///
    /// As in a load, a version replaces the stored one when its `updated` is newer or equal (a
    /// nil `updated` counts as oldest); an older version is left out and counted `unchanged`.
    /// The values pass the loader's checks (a latitude outside -90...90 is refused), and any
    /// refusal commits nothing.
    /// - Returns: the load's summary (`new`, `updated`, `unchanged`).
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for a value that is not finite,
    ///   ``QuakeError/Kind/strict`` naming the first value the loader refuses (its feature
    ///   number is its position in `quakes`), or the errors of a load.
    /// - Complexity: O(n) to stage the values (memory stays bounded), then a load of n rows.
    @discardableResult
    public func upsert(_ quakes: some Sequence<Quake>) throws -> LoadSummary {
        var it = quakes.makeIterator()
        return try upsert { it.next() }
    }

    /// Stages the values `next` gives as one GeoJSON file, then loads it strictly.
    private func upsert(_ next: () -> Quake?) throws -> LoadSummary {
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("quakes-upsert-\(FileIO.processID)-\(UUID().uuidString).geojson").path
        defer { FileIO.remove(file) }
        let out = try StagedFile(path: file)
        var buffer = Array(#"{"type":"FeatureCollection","features":["#.utf8)
        var k = 0
        while let q = next() {
            if k > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer += try Store.feature(q, index: k)
            k += 1
            if buffer.count > 1 << 20 {
                try out.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        buffer += Array("]}\n".utf8)
        try out.write(buffer)
        try out.close()
        var o = LoadOptions(strict: true)
        o.timeUnit = .milliseconds
        return try load([file], options: o)
    }

    /// Marks the events `ids` deleted, as a sync records its source's deletions: each becomes a
    /// tombstone (status `deleted`, `updated` now), hidden from fetches unless
    /// ``FetchDescriptor/includesDeleted`` is set, and kept so that its deletion shows in the
    /// history. Ids the store does not hold are passed over.
    /// - Returns: the load's summary (its `updated` is the number of events deleted).
    /// - Complexity: one id lookup per id, then a load of the tombstones.
    @discardableResult
    public func delete(ids: some Sequence<String>) throws -> LoadSummary {
        let wanted = Array(ids)
        guard !wanted.isEmpty else { return LoadSummary() }
        let now = Date()
        var d = FetchDescriptor<Quake>()
        d.includesDeleted = true
        let plan = try FetchPlan(d)
        let found = try query(QuerySpec(filter: .conjunction([plan.filter, .ids(EventIdSet(wanted))]),
                                        sort: [SortKey(.id)])).quakes
        let stones = found.filter { $0.status != "deleted" }.map { q -> Quake in
            var t = q
            t.status = "deleted"
            // a tombstone must win over the stored version: newer than its `updated`
            let stored = q.updated ?? q.time
            t.updated = max(now, stored.addingTimeInterval(0.001))
            return t
        }
        guard !stones.isEmpty else { return LoadSummary() }
        return try upsert(stones)
    }

    /// One GeoJSON feature holding every stored property of `q`.
    static func feature(_ q: Quake, index k: Int) throws(QuakeError) -> [UInt8] {
        func ms(_ name: String, _ d: Date) throws(QuakeError) -> Int64 {
            guard let v = Int64(exactly: (d.timeIntervalSince1970 * 1000).rounded()),
                  abs(v) < 253_402_300_800_000 else {
                throw .argument("quake \(k) (\(q.id)) \(name)", "a date between the years 1 and 9999")
            }
            return v
        }
        var props: [String: Any] = ["time": try ms("time", q.time)]
        func number(_ name: String, _ v: Double?) throws(QuakeError) {
            guard let v else { return }
            guard v.isFinite else { throw .argument("quake \(k) (\(q.id)) \(name)", "a finite number, not \(v)") }
            props[name] = v
        }
        try number("mag", q.magnitude)
        try number("gap", q.gap)
        try number("dmin", q.dmin)
        try number("rms", q.rms)
        try number("horizontalError", q.horizontalError)
        try number("depthError", q.depthError)
        try number("magError", q.magError)
        try number("cdi", q.cdi)
        try number("mmi", q.mmi)
        let ints: [(String, Int?)] = [("nst", q.nst), ("magNst", q.magNst), ("felt", q.felt), ("tsunami", q.tsunami),
                                      ("sig", q.sig), ("tz", q.tz)]
        for (name, v) in ints { if let v { props[name] = v } }
        let texts: [(String, String?)] = [
            ("magType", q.magType), ("net", q.net), ("place", q.place), ("type", q.type), ("status", q.status),
            ("locationSource", q.locationSource), ("magSource", q.magSource), ("alert", q.alert), ("url", q.url),
            ("detail", q.detail), ("code", q.code), ("ids", q.ids), ("sources", q.sources), ("types", q.types),
            ("title", q.title),
        ]
        for (name, v) in texts { if let v { props[name] = v } }
        if let u = q.updated { props["updated"] = try ms("updated", u) }
        guard q.latitude.isFinite, q.longitude.isFinite else {
            throw .argument("quake \(k) (\(q.id)) latitude and longitude", "finite numbers")
        }
        var coordinates: [Any] = [q.longitude, q.latitude]
        if let depth = q.depth {
            guard depth.isFinite else { throw .argument("quake \(k) (\(q.id)) depth", "a finite number") }
            coordinates.append(depth)
        }
        let feature: [String: Any] = ["type": "Feature", "id": q.id, "properties": props,
                                      "geometry": ["type": "Point", "coordinates": coordinates]]
        guard let data = try? JSONSerialization.data(withJSONObject: feature) else {
            throw .argument("quake \(k) (\(q.id))", "a value JSON can hold")
        }
        return Array(data)
    }
}

/// The file an upsert stages its values in.
private final class StagedFile {
    let path: String
    private var fd: Int32?

    init(path: String) throws {
        self.path = path
        fd = try FileIO.create(path)
    }

    func write(_ bytes: [UInt8]) throws {
        guard let fd else { return }
        try bytes.withStoreBytes { (b) throws(QuakeError) in try FileIO.writeAll(fd, b, path: path) }
    }

    func close() throws {
        guard let f = fd else { return }
        fd = nil
        try FileIO.syncAndClose(f, path: path)
    }

    deinit { if let fd { FileIO.closeQuietly(fd) } }
}
