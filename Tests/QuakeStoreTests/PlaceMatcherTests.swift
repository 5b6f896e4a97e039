import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The place matcher skips the per-row prefix check for needles that cannot touch a
/// `<N> km <DIR> of ` prefix. Every needle cut from a real or generated place that starts inside
/// its prefix must be one that can, and store counts for needles cut anywhere equal the naive ones.
@Suite struct PlaceMatcherTests {
    /// The length of the generated prefix of `place` (0 when it has none).
    static func prefixLength(_ place: [UInt8]) -> Int {
        guard let r = place.firstRange(of: Array(" of ".utf8)), r.lowerBound > 0,
              place[0] >= 0x30, place[0] <= 0x39, place[..<r.lowerBound].contains(UInt8(ascii: "k")) else { return 0 }
        return r.upperBound
    }

    static func places(_ f: Fixtures.Loaded) -> [[UInt8]] {
        Array(Set(f.quakes.compactMap { $0.place }.map { Array($0.utf8) })).sorted { $0.lexicographicallyPrecedes($1) }
    }

    static func checkSound(_ places: [[UInt8]], seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var checked = 0
        for place in places {
            let pre = prefixLength(place)
            guard pre > 0 else { continue }
            for _ in 0..<6 {
                let start = Int(rng.next() % UInt64(pre))
                let end = start + 1 + Int(rng.next() % UInt64(place.count - start))
                let cut = Array(place[start..<end])
                guard let s = String(validating: cut, as: UTF8.self) else { continue }
                for insensitive in [false, true] {
                    let needle = insensitive ? ByteSearch.fold(s) : cut
                    #expect(PlaceMatcher.mayTouchPrefix(needle, insensitive: insensitive), "\(s)")
                }
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    @Test func needlesStartingInAPrefixAreFlaggedOnGeneratedPlaces() {
        Self.checkSound(Self.places(Fixtures.generated), seed: 11)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func needlesStartingInAPrefixAreFlaggedOnRealPlaces() throws {
        let real = try #require(Fixtures.real, "real feeds present but not loaded")
        Self.checkSound(Self.places(real), seed: 12)
    }

    @Test func fixedNeedles() {
        for (needle, touches) in [("Nevada", false), ("Oklahoma", false), ("of Healy", true), (" of Ano", true),
                                  ("f Pa", true), ("km", true), ("10 km", true), ("Of Healy", false), ("SE", true),
                                  ("SE of", true), ("Sea of Japan", false), ("Island", false), ("o", true)] {
            #expect(PlaceMatcher.mayTouchPrefix(Array(needle.utf8), insensitive: false) == touches, "\(needle)")
        }
        #expect(PlaceMatcher.mayTouchPrefix(Array("nevada".utf8), insensitive: true) == false)
        #expect(PlaceMatcher.mayTouchPrefix(Array("ese of pa".utf8), insensitive: true))
    }

    static func checkCounts(_ f: Fixtures.Loaded, seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let places = Self.places(f)
        for _ in 0..<40 {
            let place = places[Int(rng.next() % UInt64(places.count))]
            let start = Int(rng.next() % UInt64(place.count))
            let end = start + 1 + Int(rng.next() % UInt64(min(12, place.count - start)))
            guard let needle = String(validating: place[start..<end], as: UTF8.self) else { continue }
            for insensitive in [false, true] {
                let got = try f.store.count(.contains(.place, needle, insensitive: insensitive))
                let want = f.quakes.filter { (try? Naive.matches(.contains(.place, needle, insensitive: insensitive), $0)) == true }.count
                #expect(got == want, "\(needle) insensitive: \(insensitive)")
            }
        }
    }

    @Test func countsForNeedlesCutFromPlacesMatchTheReference() throws {
        try Self.checkCounts(Fixtures.generated, seed: 21)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func countsOnRealPlacesMatchTheReference() throws {
        let real = try #require(Fixtures.real, "real feeds present but not loaded")
        try Self.checkCounts(real, seed: 22)
    }
}
