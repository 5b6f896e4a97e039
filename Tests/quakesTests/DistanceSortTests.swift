import Foundation
import Testing

/// `query --sort distance` with `--near`, and the `distance_km` field (issue 21), against a naive
/// reference: every stored event's position, its haversine distance, a full sort.
@Suite struct DistanceSortTests {
    struct Ranked {
        let id: String
        let km: Double?
    }

    /// Every event of `store` with its distance from the centre, nearest first (or farthest),
    /// events with no position last, ties by id.
    static func reference(_ store: String, _ lat: Double, _ lon: Double, nearestFirst: Bool = true) throws -> [Ranked] {
        let r = try CLI.run(["query", "--store", store, "--format", "csv", "--fields", "id,latitude,longitude",
                             "--no-header", "--limit", "100000000"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = r.stdout.split(separator: "\n").map { line -> Ranked in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 3, let la = Double(f[1]), let lo = Double(f[2]) else { return Ranked(id: f[0], km: nil) }
            let rad = Double.pi / 180
            let dlat = (la - lat) * rad, dlon = (lo - lon) * rad
            let a = sin(dlat / 2) * sin(dlat / 2) + cos(lat * rad) * cos(la * rad) * sin(dlon / 2) * sin(dlon / 2)
            return Ranked(id: f[0], km: 2 * 6371.0088 * asin(min(1, sqrt(a))))
        }
        return rows.sorted { a, b in
            switch (a.km, b.km) {
            case (nil, nil): return a.id < b.id
            case (nil, _): return false
            case (_, nil): return true
            case (let x?, let y?):
                if x != y { return nearestFirst ? x < y : x > y }
                return a.id < b.id
            }
        }
    }

    /// `query ... --format csv --fields id,distance_km --no-header` as (id, km) pairs.
    static func listed(_ store: String, _ args: [String]) throws -> [Ranked] {
        let r = try CLI.run(["query", "--store", store, "--format", "csv", "--fields", "id,distance_km", "--no-header"] + args)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return r.stdout.split(separator: "\n").map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            return Ranked(id: String(f[0]), km: f.count > 1 ? Double(f[1]) : nil)
        }
    }

    static func same(_ got: [Ranked], _ want: some Collection<Ranked>, _ label: String) {
        #expect(got.map(\.id) == want.map(\.id), "\(label)")
        for (g, w) in zip(got, want) {
            #expect((g.km == nil) == (w.km == nil), "\(label) \(g.id)")
            if let a = g.km, let b = w.km { #expect(abs(a - b) <= 0.0006, "\(label) \(g.id): \(a) vs \(b)") }
        }
    }

    @Test func nearestFirstOnGeneratedData() throws {
        try check(try CLI.generatedStore(rows: "4000", seed: 41), 35.0, -118.0)
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func nearestFirstOnARealFeed() throws {
        let d = CLI.tempDir()
        #expect(try CLI.run(["load", "--store", d + "/s", LoadFidelityTests.pahalaFeed]).status == 0)
        try check(d + "/s", 19.2, -155.4)
    }

    func check(_ s: String, _ lat: Double, _ lon: Double) throws {
        let near = ["--near", "\(lat),\(lon)"]
        let ref = try Self.reference(s, lat, lon)
        #expect(ref.count > 1000)
        Self.same(try Self.listed(s, near + ["--sort", "distance", "--limit", "25"]), ref.prefix(25), "top 25")
        Self.same(try Self.listed(s, near + ["--sort", "distance", "--page", "3", "--page-size", "10"]), ref[20..<30], "page 3")
        Self.same(try Self.listed(s, near + ["--sort", "distance"]), ref, "all")
        let far = try Self.reference(s, lat, lon, nearestFirst: false)
        Self.same(try Self.listed(s, near + ["--sort", "distance:desc", "--limit", "7"]), far.prefix(7), "farthest")
        // with a radius: the matches within it, in order
        let within = ref.filter { ($0.km ?? .infinity) <= 500 }
        #expect(!within.isEmpty && within.count < ref.count)
        Self.same(try Self.listed(s, near + ["--radius-km", "500", "--sort", "distance"]), within, "within 500 km")
        // the distance of another order's rows, placed where --fields puts it
        let t = try CLI.run(["query", "--store", s, "--format", "csv", "--fields", "distance_km,id"] + near + ["--limit", "3"])
        #expect(t.stdout.hasPrefix("distance_km,id\n"), "\(t.stdout)")
    }

    @Test func everyFormatCarriesTheDistanceAndTheTotal() throws {
        let s = try CLI.generatedStore(rows: "3000", seed: 42)
        let near = ["--near", "35,-118", "--sort", "distance"]
        let ref = try Self.reference(s, 35, -118)
        let json = try CLI.run(["query", "--store", s, "--format", "json", "--fields", "id,mag,distance_km", "--limit", "4"] + near)
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(obj["total"] as? Int == ref.count)
        let rows = try #require(obj["rows"] as? [[String: Any]])
        #expect(rows.compactMap { $0["id"] as? String } == ref.prefix(4).map(\.id))
        #expect(zip(rows, ref).allSatisfy { abs(($0["distance_km"] as? Double ?? -1) - ($1.km ?? -9)) <= 0.0006 })

        let nd = try CLI.run(["query", "--store", s, "--format", "ndjson", "--fields", "id,distance_km", "--limit", "2"] + near)
        #expect(nd.stdout.split(separator: "\n").first?.contains("\"distance_km\":") == true, "\(nd.stdout)")

        let geo = try CLI.run(["query", "--store", s, "--format", "geojson", "--fields", "mag,distance_km", "--limit", "3"] + near)
        let g = try #require(try JSONSerialization.jsonObject(with: Data(geo.stdout.utf8)) as? [String: Any])
        let features = try #require(g["features"] as? [[String: Any]])
        #expect(features.compactMap { $0["id"] as? String } == ref.prefix(3).map(\.id))
        #expect(features.allSatisfy { ($0["properties"] as? [String: Any])?["distance_km"] is Double })
        #expect((g["metadata"] as? [String: Any])?["total"] as? Int == ref.count)

        // the default table shows it, and its footer gives the total
        let table = try CLI.run(["query", "--store", s, "--limit", "5"] + near)
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.first?.contains("distance_km") == true, "\(table.stdout)")
        #expect(lines.last == "(5 of 3,000 rows)" && ref.count == 3000, "\(table.stdout)")
        #expect(lines.dropFirst(2).first?.hasSuffix(ref[0].id) == true, "\(table.stdout)")

        // parquet sorts by distance too
        let pq = CLI.tempDir() + "/near.parquet"
        #expect(try CLI.run(["query", "--store", s, "--format", "parquet", "--out", pq, "--fields", "id", "--limit", "6"] + near)
            .status == 0)
        #expect(FileManager.default.fileExists(atPath: pq))
    }

    @Test func misuseIsAUsageError() throws {
        let s = try CLI.generatedStore(rows: "500", seed: 43)
        for args in [["--sort", "distance"],                                     // no centre
                     ["--fields", "id,distance_km"],                             // no centre
                     ["--near", "35,-118"],                                      // a centre for nothing
                     ["--near", "35,-118", "--sort", "distance", "--sort", "mag"],
                     ["--near", "35,-118", "--sort", "distance:sideways"],
                     ["--near", "35,-118", "--fields", "distance_km", "--format", "text"],
                     ["--near", "35,-118", "--fields", "id,distance_km", "--format", "arrow"],
                     ["--near", "35,-118", "--sort", "distance", "--after", "abc"]] {
            let r = try CLI.run(["query", "--store", s] + args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
        // count has no order: a centre needs a radius there
        #expect(try CLI.run(["count", "--store", s, "--near", "35,-118"]).status == 2)
        #expect(try CLI.run(["count", "--store", s, "--near", "35,-118", "--radius-km", "100000"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines) == "500")
    }
}
