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
    package static func generate(_ options: GeneratorOptions, into directory: String) throws -> [String] {
        try FileIO.makeDirectory(directory)
        var rng = SplitMix64(seed: options.seed)
        let months = (options.lastYear - options.firstYear + 1) * 12
        let firstOrdinal = options.firstYear * 12
        let counts = monthCounts(options, months: months, rng: &rng)
        let snapshots = SnapshotFiles(options, directory: directory)
        var serial = UInt64(options.seed % 1000) * 1_000_000_000
        let recentAfter = Int64(Timestamp.days(year: options.lastYear, month: 12, day: 1)) * 86_400_000
        for monthIndex in 0..<months {
            let ordinal = firstOrdinal + monthIndex
            let start = Timestamp.days(year: ordinal / 12, month: ordinal % 12 + 1, day: 1)
            let nextOrdinal = ordinal + 1
            let end = Timestamp.days(year: nextOrdinal / 12, month: nextOrdinal % 12 + 1, day: 1)
            var batch = month(
                count: counts[monthIndex],
                from: Int64(start) * 86_400_000,
                to: Int64(end) * 86_400_000,
                serial: &serial,
                rng: &rng,
                recentAfter: recentAfter
            )
            if options.independent { batch = independent(batch, rng: &rng) }
            try snapshots.write(batch, isLastMonth: monthIndex == months - 1, rng: &rng)
        }
        try snapshots.closeFile()
        return snapshots.files
    }

    /// Events per month: smooth growth over the years plus noise, summing to `options.rows`.
    private static func monthCounts(_ options: GeneratorOptions, months: Int, rng: inout SplitMix64) -> [Int] {
        var weights = (0..<months).map { m in (0.6 + Double(m) / Double(months)) * (0.7 + 0.6 * rng.unit()) }
        let total = weights.reduce(0, +)
        weights = weights.map { $0 / total }
        var counts = weights.map { Int(Double(options.rows) * $0) }
        var short = options.rows - counts.reduce(0, +)
        var monthIndex = 0
        while short > 0 {
            counts[monthIndex % months] += 1
            short -= 1
            monthIndex += 1
        }
        return counts
    }

    /// The snapshot files of one archive: the open file, the events it holds, and the tail of
    /// events the next snapshot repeats, revised.
    private final class SnapshotFiles {
        let options: GeneratorOptions
        let directory: String
        var files: [String] = []
        var sink: OutputSink?
        var writer: FeedWriter?
        var inFile = 0
        var pendingRevisions = RowBatch()
        var tail = RowBatch()
        let keep: Int
        let ext: String
        let suffix: String

        init(_ options: GeneratorOptions, directory: String) {
            self.options = options
            self.directory = directory
            keep = Int(Double(options.rowsPerFile) * options.overlap)
            ext = options.format == .csv ? "csv" : "geojson"
            suffix = options.compression == .none ? "" : "." + options.compression.rawValue
        }

        /// Writes one month's events, starting a new snapshot whenever one is full.
        func write(_ batch: RowBatch, isLastMonth: Bool, rng: inout SplitMix64) throws {
            var start = 0
            while start < batch.count {
                if writer == nil { try openFile() }
                let take = min(batch.count - start, options.rowsPerFile - inFile)
                for row in start..<(start + take) { writer!.write(batch, row: row) }
                if keep > 0 {
                    tail.append(contentsOf: batch.gather(Array(max(start, start + take - keep)..<(start + take))))
                    if tail.count > 2 * keep { tail = tail.gather(Array((tail.count - keep)..<tail.count)) }
                }
                inFile += take
                start += take
                if inFile >= options.rowsPerFile {
                    try closeFile()
                    // the next snapshot starts by repeating the tail of this one, revised
                    if keep > 0 && (!isLastMonth || start < batch.count) {
                        let last = tail.gather(Array(max(0, tail.count - keep)..<tail.count))
                        pendingRevisions = FeedGenerator.revise(last, rows: 0..<last.count, rng: &rng)
                    }
                    tail = RowBatch()
                }
            }
        }

        func openFile() throws {
            let name = String(format: "%@/quakes-%04d.%@%@", directory, files.count + 1, ext, suffix)
            let fileSink = try OutputSink(path: name, compression: options.compression)
            let feedWriter = FeedWriter(format: options.format, sink: fileSink)
            feedWriter.begin(count: nil)
            sink = fileSink
            writer = feedWriter
            files.append(name)
            inFile = 0
            for i in 0..<pendingRevisions.count { feedWriter.write(pendingRevisions, row: i) }
            pendingRevisions = RowBatch()
        }

        func closeFile() throws(QuakeError) {
            writer?.end()
            try sink?.finish()
            writer = nil
            sink = nil
        }
    }

    /// Later versions of `rows`: `updated` moves on, status becomes reviewed, magnitude may change.
    package static func revise(_ batch: RowBatch, rows: Range<Int>, rng: inout SplitMix64) -> RowBatch {
        var out = RowBatch()
        var status = ByteArena()
        for i in rows {
            out.append(from: batch, row: i)
            let row = out.count - 1
            out.ints[Column.updated.rawValue][row] += Int64(3_600_000 + rng.next() % 86_400_000)
            if rng.unit() < 0.5, out.ints[Column.mag.rawValue][row] != RowBatch.null {
                let revised = ScaledDecimal.double(out.ints[Column.mag.rawValue][row]) + (rng.unit() < 0.5 ? -0.1 : 0.1)
                out.ints[Column.mag.rawValue][row] = decimal(max(0, revised), scale: 2)
            }
            status.append("reviewed".utf8)
        }
        out.text[Column.status.rawValue] = status
        return out
    }

    /// A scaled decimal of `value` at `scale` places, trailing zeros dropped as USGS writes them.
    package static func decimal(_ value: Double, scale: Int) -> Int64 {
        var mantissa = Int64((value * ScaledDecimal.pow10[scale]).rounded())
        var places = scale
        while places > 0 && mantissa % 10 == 0 {
            mantissa /= 10
            places -= 1
        }
        return mantissa << 6 | Int64(places)
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
        var drawn: Double
        repeat { drawn = mc - log10(1 - rng.unit()) } while drawn >= cap   // b = 1
        return drawn
    }

    private static func month(
        count: Int,
        from: Int64,
        to: Int64,
        serial: inout UInt64,
        rng: inout SplitMix64,
        recentAfter: Int64
    ) -> RowBatch {
        let events = drawEvents(count: count, from: from, to: to, rng: &rng)
        var batch = RowBatch()
        for event in events {
            serial += 1
            batch.beginRow()
            fill(&batch, event, serial: serial, rng: &rng, recent: event.time >= recentAfter)
            batch.endRow(present: Column.allMask, seq: 0)
        }
        return batch
    }

    /// `count` events in `from..<to`, in time order: background events by network weight, and
    /// now and then a mainshock with its aftershocks.
    private static func drawEvents(count: Int, from: Int64, to: Int64, rng: inout SplitMix64) -> [Event] {
        let nets = SeismicNetwork.all
        let cumulative = nets.reduce(into: [Double]()) { $0.append(($0.last ?? 0) + $1.weight) }
        func pickNet() -> Int {
            let draw = rng.unit() * cumulative.last!
            return cumulative.firstIndex { $0 >= draw } ?? 0
        }
        func location(_ netIndex: Int) -> (Double, Double) {
            let net = nets[netIndex]
            if net.spread == 0 { return (rng.unit() * 140 - 70, rng.unit() * 360 - 180) }
            return (
                min(89.9, max(-89.9, net.latitude + rng.normal() * net.spread)),
                wrap(net.longitude + rng.normal() * net.spread)
            )
        }
        var events: [Event] = []
        events.reserveCapacity(count)
        while events.count < count {
            let netIndex = pickNet()
            let (lat, lon) = location(netIndex)
            let time = from + Int64(rng.next() % UInt64(to - from))
            if rng.unit() < 0.003 {
                // a mainshock and its aftershock sequence (Omori: rate ~ 1 / (t + c)^p)
                let main = Event(
                    time: time, net: netIndex, lat: lat, lon: lon,
                    depth: 5 + rng.unit() * 30, mag: 4.5 + magnitude(0, max: 3.5, &rng)
                )
                events.append(main)
                let after = min(count - events.count, Int(pow(10, main.mag - 3.2)))
                for _ in 0..<after {
                    let days = 0.01 * (pow(1 - rng.unit() * 0.999, -1 / 0.15) - 1)
                    let at = min(to - 1, time + Int64(min(days, 60) * 86_400_000))
                    events.append(Event(time: at, net: netIndex,
                                        lat: lat + rng.normal() * 0.1, lon: wrap(lon + rng.normal() * 0.1),
                                        depth: max(0, main.depth + rng.normal() * 3),
                                        mag: magnitude(nets[netIndex].completeness, max: main.mag, &rng)))
                }
            } else {
                events.append(Event(time: time, net: netIndex, lat: lat, lon: lon,
                                    depth: max(0, -log(1 - rng.unit()) * 10 - 1),
                                    mag: magnitude(nets[netIndex].completeness, max: 9.5, &rng)))
            }
        }
        events.sort { $0.time < $1.time }
        return events
    }

    private static func wrap(_ lon: Double) -> Double {
        var wrapped = lon
        while wrapped > 180 { wrapped -= 360 }
        while wrapped < -180 { wrapped += 360 }
        return wrapped
    }

    private static func base36(_ value: UInt64, width: Int) -> String {
        let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        var characters: [Character] = []
        var rest = value
        repeat {
            characters.append(digits[Int(rest % 36)])
            rest /= 36
        } while rest > 0
        while characters.count < width { characters.append("0") }
        return String(characters.reversed())
    }

    /// The place of an event: a remote region, or `<N> km <DIR> of <locality>`.
    private static func placeName(of event: Event, _ net: SeismicNetwork, rng: inout SplitMix64) -> String {
        if net.code == "us" && rng.unit() < 0.15 {
            return rng.pick(SeismicNetwork.regions)
        }
        let dirs = PlacePayload.directions
        var locality = event.locality ?? rng.pick(net.localities)
        // before 2016 USGS spelled out the state ("…, California"), later ", CA"
        if event.time < 1_451_606_400_000 && locality.hasSuffix(", CA") {
            locality = String(locality.dropLast(2)) + "California"
        }
        return "\(Int(-log(1 - rng.unit()) * 25)) km \(rng.pick(dirs)) of \(locality)"
    }

    /// Felt reports, intensities, alert level, tsunami flag and significance, by magnitude.
    private static func fillImpact(_ batch: inout RowBatch, _ event: Event, rng: inout SplitMix64) {
        if event.mag >= 3 && rng.unit() < 0.4 {
            batch.setInt(.felt, ScaledDecimal.fromInteger(Int64(rng.next() % 500)))
            batch.setInt(.cdi, decimal(1 + rng.unit() * 6, scale: 1))
        }
        if event.mag >= 4 { batch.setInt(.mmi, decimal(2 + rng.unit() * 5, scale: 3)) }
        if event.mag >= 5.5 { batch.setText(.alert, Array((rng.unit() < 0.9 ? "green" : "yellow").utf8)) }
        batch.setInt(.tsunami, ScaledDecimal.fromInteger(event.mag >= 6.5 && rng.unit() < 0.5 ? 1 : 0))
        batch.setInt(.sig, ScaledDecimal.fromInteger(Int64(max(0, event.mag) * max(0, event.mag) * 18)))
    }

    private static func fill(_ batch: inout RowBatch, _ event: Event, serial: UInt64, rng: inout SplitMix64,
                             recent: Bool) {
        let net = SeismicNetwork.all[event.net]
        func text(_ column: Column, _ value: String) { batch.setText(column, Array(value.utf8)) }
        func maybe(_ probability: Double) -> Bool { rng.unit() < probability }
        let code = base36(serial &* 2_654_435_761 % 2_821_109_907_456, width: 8)
        let id = net.code + code
        batch.setInt(.time, event.time)
        batch.setInt(.updated, event.time + Int64(60_000 + rng.next() % 172_800_000))
        batch.setInt(.latitude, decimal(event.lat, scale: net.coordinateScale))
        batch.setInt(.longitude, decimal(event.lon, scale: net.coordinateScale))
        batch.setInt(.depth, decimal(event.depth, scale: net.coordinateScale > 4 ? 2 : 1))
        let magScale = net.code == "us" || net.code == "ak" ? 1 : 2
        batch.setInt(.mag, decimal(event.mag, scale: magScale))
        text(.magType, event.mag >= 5.5 && net.code == "us" ? "mww" : rng.pick(net.magTypes))
        if net.reportsStationCounts {
            batch.setInt(.nst, ScaledDecimal.fromInteger(Int64(5 + rng.next() % 80)))
            batch.setInt(.gap, decimal(20 + rng.unit() * 250, scale: net.coordinateScale > 4 ? 0 : 2))
            let dmin = rng.unit() * (net.code == "us" ? 20 : 0.5)
            batch.setInt(.dmin, decimal(dmin, scale: net.code == "us" ? 3 : 5))
        }
        batch.setInt(.rms, decimal(rng.unit() * 1.2, scale: 2))
        text(.net, net.code)
        text(.id, id)
        let place = placeName(of: event, net, rng: &rng)
        text(.place, place)
        let draw = rng.unit()
        text(.type, draw < 0.97 ? "earthquake"
             : draw < 0.985 ? "quarry blast"
             : draw < 0.995 ? "explosion"
             : "ice quake")
        if maybe(0.7) { batch.setInt(.horizontalError, decimal(rng.unit() * 5, scale: 2)) }
        batch.setInt(.depthError, decimal(rng.unit() * 10, scale: 2))
        if maybe(0.6) { batch.setInt(.magError, decimal(rng.unit() * 0.3, scale: 3)) }
        if maybe(0.6) { batch.setInt(.magNst, ScaledDecimal.fromInteger(Int64(rng.next() % 60))) }
        text(.status, recent && maybe(0.7) ? "automatic" : "reviewed")
        text(.locationSource, net.code)
        text(.magSource, net.code)
        fillImpact(&batch, event, rng: &rng)
        text(.url, "https://earthquake.usgs.gov/earthquakes/eventpage/\(id)")
        text(.detail, "https://earthquake.usgs.gov/earthquakes/feed/v1.0/detail/\(id).geojson")
        text(.code, code)
        text(.ids, ",\(id),")
        text(.sources, ",\(net.code),")
        let types = event.mag >= 4 ? ",dyfi,losspager,moment-tensor,origin,phase-data,shakemap," : ",origin,phase-data,"
        text(.types, types)
        text(.title, "M \(String(format: "%.1f", event.mag)) - \(place)")
    }
}
