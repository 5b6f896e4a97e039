import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

/// Options for ``FeedGenerator``.
package struct GeneratorOptions: Sendable {
    /// Distinct events to generate (revised versions in overlapping snapshots come on top).
    package var rows: Int
    package var format: FeedWriter.Format = .csv
    package var seed: UInt64 = 42
    package var compression: OutputSink.Compression = .none
    /// Events per snapshot file.
    package var rowsPerFile = 1_000_000
    /// Fraction of each snapshot's last events that the next snapshot repeats as revised versions.
    package var overlap = 0.02
    package var firstYear = 2000
    package var lastYear = 2025
    /// Every column but `time` shuffled on its own within each month, and `updated` spread over
    /// years: an archive whose columns vary independently (see `independent(_:rng:)`).
    package var independent = false

    package init(rows: Int) { self.rows = rows }
}

/// Writes realistic synthetic USGS feed archives: Gutenberg-Richter magnitudes above each
/// network's completeness, aftershock sequences with Omori-law times, `<N> km <DIR> of
/// <locality>` places (non-ASCII localities included), per-network magnitude types, nulls
/// where real feeds have them, and overlapping snapshots whose repeated events carry a later
/// `updated` and revised fields. Memory is bounded by one month of events.
package enum FeedGenerator {
    /// Generates the archive into `directory`; returns the files written.
    package static func generate(_ o: GeneratorOptions, into directory: String) throws -> [String] {
        try FileIO.makeDirectory(directory)
        var rng = SplitMix64(seed: o.seed)
        let months = (o.lastYear - o.firstYear + 1) * 12
        let firstOrdinal = o.firstYear * 12
        // events per month: smooth growth over the years plus noise, summing to `rows`
        var weights = (0..<months).map { m in (0.6 + Double(m) / Double(months)) * (0.7 + 0.6 * rng.unit()) }
        let total = weights.reduce(0, +)
        weights = weights.map { $0 / total }
        var counts = weights.map { Int(Double(o.rows) * $0) }
        var short = o.rows - counts.reduce(0, +)
        var k = 0
        while short > 0 { counts[k % months] += 1; short -= 1; k += 1 }

        var files: [String] = []
        var sink: OutputSink?
        var writer: FeedWriter?
        var inFile = 0
        var pendingRevisions = RowBatch()
        var tail = RowBatch()
        let keep = Int(Double(o.rowsPerFile) * o.overlap)
        var serial = UInt64(o.seed % 1000) * 1_000_000_000
        let ext = o.format == .csv ? "csv" : "geojson"
        let suffix = o.compression == .none ? "" : "." + o.compression.rawValue

        func openFile() throws {
            let name = String(format: "%@/quakes-%04d.%@%@", directory, files.count + 1, ext, suffix)
            let s = try OutputSink(path: name, compression: o.compression)
            let w = FeedWriter(format: o.format, sink: s)
            w.begin(count: nil)
            sink = s
            writer = w
            files.append(name)
            inFile = 0
            for i in 0..<pendingRevisions.count { w.write(pendingRevisions, row: i) }
            pendingRevisions = RowBatch()
        }
        func closeFile() throws(QuakeError) {
            writer?.end()
            try sink?.finish()
            writer = nil
            sink = nil
        }

        for m in 0..<months {
            let start = Timestamp.days(year: (firstOrdinal + m) / 12, month: (firstOrdinal + m) % 12 + 1, day: 1)
            let o2 = firstOrdinal + m + 1
            let end = Timestamp.days(year: o2 / 12, month: o2 % 12 + 1, day: 1)
            var batch = month(count: counts[m], from: Int64(start) * 86_400_000, to: Int64(end) * 86_400_000,
                              serial: &serial, rng: &rng, recentAfter: Int64(Timestamp.days(year: o.lastYear, month: 12, day: 1)) * 86_400_000)
            if o.independent { batch = independent(batch, rng: &rng) }
            var i = 0
            while i < batch.count {
                if writer == nil { try openFile() }
                let take = min(batch.count - i, o.rowsPerFile - inFile)
                for r in i..<(i + take) { writer!.write(batch, row: r) }
                if keep > 0 {
                    tail.append(contentsOf: batch.gather(Array(max(i, i + take - keep)..<(i + take))))
                    if tail.count > 2 * keep { tail = tail.gather(Array((tail.count - keep)..<tail.count)) }
                }
                inFile += take
                i += take
                if inFile >= o.rowsPerFile {
                    try closeFile()
                    // the next snapshot starts by repeating the tail of this one, revised
                    if keep > 0 && (m < months - 1 || i < batch.count) {
                        let last = tail.gather(Array(max(0, tail.count - keep)..<tail.count))
                        pendingRevisions = revise(last, rows: 0..<last.count, rng: &rng)
                    }
                    tail = RowBatch()
                }
            }
        }
        try closeFile()
        return files
    }

    /// Later versions of `rows`: `updated` moves on, status becomes reviewed, magnitude may change.
    package static func revise(_ b: RowBatch, rows: Range<Int>, rng: inout SplitMix64) -> RowBatch {
        var out = RowBatch()
        var status = ByteArena()
        for i in rows {
            out.append(from: b, row: i)
            let r = out.count - 1
            out.ints[Column.updated.rawValue][r] += Int64(3_600_000 + rng.next() % 86_400_000)
            if rng.unit() < 0.5, out.ints[Column.mag.rawValue][r] != RowBatch.null {
                let v = ScaledDecimal.double(out.ints[Column.mag.rawValue][r]) + (rng.unit() < 0.5 ? -0.1 : 0.1)
                out.ints[Column.mag.rawValue][r] = decimal(max(0, v), scale: 2)
            }
            status.append("reviewed".utf8)
        }
        out.text[Column.status.rawValue] = status
        return out
    }

    /// A scaled decimal of `v` at `scale` places, trailing zeros dropped as USGS writes them.
    package static func decimal(_ v: Double, scale: Int) -> Int64 {
        var m = Int64((v * ScaledDecimal.pow10[scale]).rounded())
        var s = scale
        while s > 0 && m % 10 == 0 { m /= 10; s -= 1 }
        return m << 6 | Int64(s)
    }

    private struct Event {
        package var time: Int64
        package var net: Int
        package var lat: Double
        package var lon: Double
        package var depth: Double
        package var mag: Double
        package var locality: String?
    }

    private static func magnitude(_ mc: Double, max cap: Double, _ rng: inout SplitMix64) -> Double {
        var m: Double
        repeat { m = mc - log10(1 - rng.unit()) } while m >= cap   // b = 1
        return m
    }

    private static func month(count n: Int, from: Int64, to: Int64, serial: inout UInt64, rng: inout SplitMix64, recentAfter: Int64) -> RowBatch {
        let nets = SeismicNetwork.all
        let cumulative = nets.reduce(into: [Double]()) { $0.append(($0.last ?? 0) + $1.weight) }
        func pickNet() -> Int {
            let u = rng.unit() * cumulative.last!
            return cumulative.firstIndex { $0 >= u } ?? 0
        }
        func location(_ k: Int) -> (Double, Double) {
            let net = nets[k]
            if net.spread == 0 { return (rng.unit() * 140 - 70, rng.unit() * 360 - 180) }
            return (min(89.9, max(-89.9, net.latitude + rng.normal() * net.spread)), wrap(net.longitude + rng.normal() * net.spread))
        }
        var events: [Event] = []
        events.reserveCapacity(n)
        while events.count < n {
            let k = pickNet()
            let (lat, lon) = location(k)
            let t = from + Int64(rng.next() % UInt64(to - from))
            if rng.unit() < 0.003 {
                // a mainshock and its aftershock sequence (Omori: rate ~ 1 / (t + c)^p)
                let main = Event(time: t, net: k, lat: lat, lon: lon, depth: 5 + rng.unit() * 30, mag: 4.5 + magnitude(0, max: 3.5, &rng))
                events.append(main)
                let after = min(n - events.count, Int(pow(10, main.mag - 3.2)))
                for _ in 0..<after {
                    let days = 0.01 * (pow(1 - rng.unit() * 0.999, -1 / 0.15) - 1)
                    let at = min(to - 1, t + Int64(min(days, 60) * 86_400_000))
                    events.append(Event(time: at, net: k, lat: lat + rng.normal() * 0.1, lon: wrap(lon + rng.normal() * 0.1),
                                        depth: max(0, main.depth + rng.normal() * 3),
                                        mag: magnitude(nets[k].completeness, max: main.mag, &rng)))
                }
            } else {
                events.append(Event(time: t, net: k, lat: lat, lon: lon, depth: max(0, -log(1 - rng.unit()) * 10 - 1),
                                    mag: magnitude(nets[k].completeness, max: 9.5, &rng)))
            }
        }
        events.sort { $0.time < $1.time }
        var b = RowBatch()
        for e in events {
            serial += 1
            b.beginRow()
            fill(&b, e, serial: serial, rng: &rng, recent: e.time >= recentAfter)
            b.endRow(present: Column.allMask, seq: 0)
        }
        return b
    }

    private static func wrap(_ lon: Double) -> Double {
        var l = lon
        while l > 180 { l -= 360 }
        while l < -180 { l += 360 }
        return l
    }

    private static func base36(_ v: UInt64, width: Int) -> String {
        let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        var s: [Character] = []
        var x = v
        repeat { s.append(digits[Int(x % 36)]); x /= 36 } while x > 0
        while s.count < width { s.append("0") }
        return String(s.reversed())
    }

    private static func fill(_ b: inout RowBatch, _ e: Event, serial: UInt64, rng: inout SplitMix64, recent: Bool) {
        let net = SeismicNetwork.all[e.net]
        func text(_ c: Column, _ s: String) { b.setText(c, Array(s.utf8)) }
        func maybe(_ p: Double) -> Bool { rng.unit() < p }
        let code = base36(serial &* 2_654_435_761 % 2_821_109_907_456, width: 8)
        let id = net.code + code
        b.setInt(.time, e.time)
        b.setInt(.updated, e.time + Int64(60_000 + rng.next() % 172_800_000))
        b.setInt(.latitude, decimal(e.lat, scale: net.coordinateScale))
        b.setInt(.longitude, decimal(e.lon, scale: net.coordinateScale))
        b.setInt(.depth, decimal(e.depth, scale: net.coordinateScale > 4 ? 2 : 1))
        let magScale = net.code == "us" || net.code == "ak" ? 1 : 2
        b.setInt(.mag, decimal(e.mag, scale: magScale))
        text(.magType, e.mag >= 5.5 && net.code == "us" ? "mww" : rng.pick(net.magTypes))
        if net.reportsStationCounts {
            b.setInt(.nst, ScaledDecimal.fromInteger(Int64(5 + rng.next() % 80)))
            b.setInt(.gap, decimal(20 + rng.unit() * 250, scale: net.coordinateScale > 4 ? 0 : 2))
            b.setInt(.dmin, decimal(rng.unit() * (net.code == "us" ? 20 : 0.5), scale: net.code == "us" ? 3 : 5))
        }
        b.setInt(.rms, decimal(rng.unit() * 1.2, scale: 2))
        text(.net, net.code)
        text(.id, id)
        let place: String
        if net.code == "us" && maybe(0.15) {
            place = rng.pick(SeismicNetwork.regions)
        } else {
            let dirs = PlacePayload.directions
            var locality = e.locality ?? rng.pick(net.localities)
            // before 2016 USGS spelled out the state ("…, California"), later ", CA"
            if e.time < 1_451_606_400_000 && locality.hasSuffix(", CA") { locality = String(locality.dropLast(2)) + "California" }
            place = "\(Int(-log(1 - rng.unit()) * 25)) km \(rng.pick(dirs)) of \(locality)"
        }
        text(.place, place)
        let u = rng.unit()
        text(.type, u < 0.97 ? "earthquake" : u < 0.985 ? "quarry blast" : u < 0.995 ? "explosion" : "ice quake")
        if maybe(0.7) { b.setInt(.horizontalError, decimal(rng.unit() * 5, scale: 2)) }
        b.setInt(.depthError, decimal(rng.unit() * 10, scale: 2))
        if maybe(0.6) { b.setInt(.magError, decimal(rng.unit() * 0.3, scale: 3)) }
        if maybe(0.6) { b.setInt(.magNst, ScaledDecimal.fromInteger(Int64(rng.next() % 60))) }
        text(.status, recent && maybe(0.7) ? "automatic" : "reviewed")
        text(.locationSource, net.code)
        text(.magSource, net.code)
        if e.mag >= 3 && maybe(0.4) {
            b.setInt(.felt, ScaledDecimal.fromInteger(Int64(rng.next() % 500)))
            b.setInt(.cdi, decimal(1 + rng.unit() * 6, scale: 1))
        }
        if e.mag >= 4 { b.setInt(.mmi, decimal(2 + rng.unit() * 5, scale: 3)) }
        if e.mag >= 5.5 { text(.alert, maybe(0.9) ? "green" : "yellow") }
        b.setInt(.tsunami, ScaledDecimal.fromInteger(e.mag >= 6.5 && maybe(0.5) ? 1 : 0))
        b.setInt(.sig, ScaledDecimal.fromInteger(Int64(max(0, e.mag) * max(0, e.mag) * 18)))
        text(.url, "https://earthquake.usgs.gov/earthquakes/eventpage/\(id)")
        text(.detail, "https://earthquake.usgs.gov/earthquakes/feed/v1.0/detail/\(id).geojson")
        text(.code, code)
        text(.ids, ",\(id),")
        text(.sources, ",\(net.code),")
        text(.types, e.mag >= 4 ? ",dyfi,losspager,moment-tensor,origin,phase-data,shakemap," : ",origin,phase-data,")
        text(.title, "M \(String(format: "%.1f", e.mag)) - \(place)")
    }
}
