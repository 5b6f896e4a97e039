import Testing
@testable import QuakeFormat
import QuakeGenerator

/// Gathering rows of an arena, a category block and a place block, against the values read
/// one row at a time: empty and null values, repeats, reversed and random orders, no rows.
@Suite struct ByteArenaGatherTests {
    /// An arena of `rows` values of 0-40 bytes (every seventh empty), drawn with `rng`.
    static func arena(rows: Int, _ rng: inout SplitMix64) -> ByteArena {
        var arena = ByteArena()
        for row in 0..<rows {
            let length = row % 7 == 0 ? 0 : Int(rng.next() % 41)
            arena.append((0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        }
        return arena
    }

    /// Orders over `rows` rows: none, every row, reversed, one row many times, random picks.
    static func orders(rows: Int, _ rng: inout SplitMix64) -> [[Int]] {
        guard rows > 0 else { return [[]] }
        var out: [[Int]] = [[], Array(0..<rows), Array((0..<rows).reversed()), Array(repeating: rows / 2, count: 9)]
        for _ in 0..<5 {
            out.append((0..<Int(rng.next() % UInt64(2 * rows + 1))).map { _ in Int(rng.next() % UInt64(rows)) })
        }
        return out
    }

    @Test func gatherEqualsRowByRow() {
        var rng = SplitMix64(seed: 6_850)
        for rows in [0, 1, 2, 17, 1_000, 5_000] {
            let arena = Self.arena(rows: rows, &rng)
            for order in Self.orders(rows: rows, &rng) {
                let gathered = arena.gather(order)
                #expect(gathered.count == order.count)
                #expect(gathered.bytes.count == order.reduce(0) { $0 + arena.range($1).count })
                for (position, row) in order.enumerated() {
                    #expect(gathered.bytes[gathered.range(position)] == arena.bytes[arena.range(row)])
                }
            }
        }
    }

    @Test func categoryAndPlaceValuesOfPickedRowsEqualTheWholeArenas() throws {
        var rng = SplitMix64(seed: 6_851)
        let localities = ["Tonopah, Nevada", "Tobelo, Indonesia", "Ridgecrest, CA", "the Fiji Islands region"]
        let directions = ["N", "NNE", "ESE", "SW", "W"]
        for rows in [1, 9, 700, 4_500] {
            var places = ByteArena()
            var dictionary = ByteArena()
            for value in ["ml", "md", "mb", "mww"] { dictionary.append(Array(value.utf8)) }
            var codes: [UInt32] = []
            for row in 0..<rows {
                codes.append(UInt32(rng.next() % 5))
                let locality = localities[Int(rng.next() % UInt64(localities.count))]
                let text: String = switch row % 5 {
                case 0: ""
                case 1: locality
                default: "\(rng.next() % 300) km \(directions[Int(rng.next() % 5)]) of \(locality)"
                }
                places.append(Array(text.utf8))
            }
            let category = CategoryBlock(dictionary: dictionary, codes: codes)
            let encoded = PlacePayload.encode(places, rows: 0..<rows)
            let place = try encoded.withUnsafeBytes { raw throws(QuakeError) in try PlacePayload.decode(raw, rows: rows) }
            let wholeCategory = category.arena()
            let wholePlace = place.arena()
            #expect(wholePlace == places)
            for order in Self.orders(rows: rows, &rng) {
                #expect(category.arena(of: order) == wholeCategory.gather(order))
                #expect(place.arena(of: order) == places.gather(order))
            }
        }
    }
}
