import Foundation
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The fields an upsert row sets besides time, coordinates, id and updated (CSV text; empty for
/// none, quoted by the caller where it may hold a comma).
struct UpsertFields {
    var depth = "", mag = "", magType = "", net = "", place = "", type = ""
}

extension TestSupport {
    /// Writes `path`: a CSV that upserts up to `picks` distinct events of `quakes`, each moved by
    /// up to 300 days either way (so across partitions) with `updated` a day later, and with the
    /// fields `fields` draws for it. Returns the ids it upserts.
    static func writeUpserts(of quakes: [Quake], picks: Int, seed: UInt64, to path: String,
                             _ fields: (Quake, inout SplitMix64) -> UpsertFields) -> Set<String> {
        var rng = SplitMix64(seed: seed)
        var lines = ["time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type"]
        var seen = Set<String>()
        for _ in 0..<picks {
            let q = quakes[Int(rng.next() % UInt64(quakes.count))]
            guard seen.insert(q.id).inserted else { continue }
            let time = Timestamp.string(q.timeMilliseconds + (Int64(rng.next() % 600) - 300) * 86_400_000)
            let updated = Timestamp.string(Int64((q.updated ?? q.time).timeIntervalSince1970 * 1000) + 86_400_000)
            let f = fields(q, &rng)
            lines.append([time, "\(q.latitude)", "\(q.longitude)", f.depth, f.mag, f.magType, "", "", "", "", f.net, q.id,
                          updated, f.place, f.type].joined(separator: ","))
        }
        write(lines.joined(separator: "\n") + "\n", to: path)
        return seen
    }

    /// A magnitude for an upsert: none one time in six, else 0.0 to 9.4.
    static func upsertMag(_ rng: inout SplitMix64) -> String {
        rng.next() % 6 == 0 ? "" : String(Double(rng.next() % 95) / 10)
    }

    /// Three inputs for load steps: `feed`, overlapping snapshots of 8,000 events (so a load of
    /// it repeats events); `up`, upserts of up to `picks` of them that move across partitions,
    /// with new magnitudes and places in `country`; `more`, 3,000 further events.
    static func upsertInputs(_ tag: String, seed: UInt64, picks: Int,
                             country: String) throws -> (feed: String, up: String, more: String) {
        let feed = try DirectPartitionsTests.generate(tag, rows: 8000, perFile: 3000, overlap: 0.3, seed: seed)
        let (store, _, _) = try load([feed])
        let quakes = try allRows(store)
        let qs = (0..<quakes.count).map { Quake(batch: quakes, row: $0) }
        let up = tempDir("\(tag)-up") + "/up.csv"
        _ = writeUpserts(of: qs, picks: picks, seed: seed &+ 1, to: up) { _, rng in
            UpsertFields(mag: upsertMag(&rng), place: "\"\(rng.next() % 50) km N of Nowhere, \(country)\"")
        }
        let more = try DirectPartitionsTests.generate(tag + "-more", rows: 3000, perFile: 3000, overlap: 0,
                                                      seed: seed &+ 2)
        return (feed, up, more)
    }
}
