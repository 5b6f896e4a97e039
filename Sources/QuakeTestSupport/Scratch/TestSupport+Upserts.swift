import Foundation
import QuakeStore
import QuakeFormat
import QuakeGenerator

/// The fields an upsert row sets besides time, coordinates, id and updated (CSV text; empty for
/// none, quoted by the caller where it may hold a comma).
package struct UpsertFields {
    package var depth: String
    package var mag: String
    package var magType: String
    package var net: String
    package var place: String
    package var type: String

    package init(depth: String = "", mag: String = "", magType: String = "", net: String = "", place: String = "",
                 type: String = "") {
        self.depth = depth
        self.mag = mag
        self.magType = magType
        self.net = net
        self.place = place
        self.type = type
    }
}

extension TestSupport {
    /// Writes `path`: a CSV that upserts up to `picks` distinct events of `quakes`, each moved by
    /// up to 300 days either way (so across partitions) with `updated` a day later, and with the
    /// fields `fields` draws for it. Returns the ids it upserts.
    package static func writeUpserts(of quakes: [Quake], picks: Int, seed: UInt64, to path: String,
                             _ fields: (Quake, inout SplitMix64) -> UpsertFields) -> Set<String> {
        var rng = SplitMix64(seed: seed)
        var lines = ["time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type"]
        var seen = Set<String>()
        for _ in 0..<picks {
            let quake = quakes[Int(rng.next() % UInt64(quakes.count))]
            guard seen.insert(quake.id).inserted else { continue }
            let time = Timestamp.string(quake.timeMilliseconds + (Int64(rng.next() % 600) - 300) * 86_400_000)
            let updatedMilliseconds = Int64((quake.updated ?? quake.time).timeIntervalSince1970 * 1000)
            let updated = Timestamp.string(updatedMilliseconds + 86_400_000)
            let drawn = fields(quake, &rng)
            lines.append([time, "\(quake.latitude)", "\(quake.longitude)", drawn.depth, drawn.mag, drawn.magType,
                          "", "", "", "", drawn.net, quake.id, updated, drawn.place, drawn.type]
                .joined(separator: ","))
        }
        write(lines.joined(separator: "\n") + "\n", to: path)
        return seen
    }

    /// A magnitude for an upsert: none one time in six, else 0.0 to 9.4.
    package static func upsertMag(_ rng: inout SplitMix64) -> String {
        rng.next() % 6 == 0 ? "" : String(Double(rng.next() % 95) / 10)
    }

    /// Three inputs for load steps: `feed`, overlapping snapshots of 8,000 events (so a load of
    /// it repeats events); `up`, upserts of up to `picks` of them that move across partitions,
    /// with new magnitudes and places in `country`; `more`, 3,000 further events.
    package static func upsertInputs(_ tag: String, seed: UInt64, picks: Int,
                             country: String) throws -> (feed: String, up: String, more: String) {
        let feed = try generatedFeed(tag, rows: 8000, perFile: 3000, overlap: 0.3, seed: seed)
        let (store, _, _) = try load([feed])
        let batch = try allRows(store)
        let quakes = (0..<batch.count).map { Quake(batch: batch, row: $0) }
        let up = tempDir("\(tag)-up") + "/up.csv"
        _ = writeUpserts(of: quakes, picks: picks, seed: seed &+ 1, to: up) { _, rng in
            UpsertFields(mag: upsertMag(&rng), place: "\"\(rng.next() % 50) km N of Nowhere, \(country)\"")
        }
        let more = try generatedFeed(tag + "-more", rows: 3000, perFile: 3000, overlap: 0, seed: seed &+ 2)
        return (feed, up, more)
    }

    /// A folder of generated CSV snapshots over 2021-2022 (QuakeStoreTests'
    /// `DirectPartitionsTests.generate` with its default format and compression).
    package static func generatedFeed(_ tag: String, rows: Int, perFile: Int, overlap: Double,
                              seed: UInt64) throws -> String {
        let directory = tempDir(tag + "-\(UUID().uuidString)")
        var options = GeneratorOptions(rows: rows)
        options.firstYear = 2021
        options.lastYear = 2022
        options.rowsPerFile = perFile
        options.overlap = overlap
        options.seed = seed
        _ = try FeedGenerator.generate(options, into: directory)
        return directory
    }
}
