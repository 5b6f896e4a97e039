import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport

/// Arithmetic comparisons skip the granules their zone maps rule out (issue 69): the answers
/// equal the naive reference's and Foundation's, and the engine reads fewer granules.
@Suite struct ArithmeticPruningTests {
    @Test func arithmeticComparisonsSkipGranules() throws {
        let fixtures = [Fixtures.generated] + (Fixtures.real.map { [$0] } ?? [])
        let texts = ["depth * 2 > 300", "depth * 2 > 20", "mag * 10 - 5 >= 60", "-depth < -250", "depth / 4 < 0.5",
                     "not (depth * 2 > 300)", "mag + depth > 400", "(updated - time) / 3600000 > 24000",
                     "latitude * 2 < -150", "mag * 10 == 45", "mag * 10 != 45", "depth * 2 <= 300"]
        for fixture in fixtures {
            var pruned = 0
            for text in texts {
                let filter = try WhereParser.parse(text)
                let want = try fixture.quakes.filter { try Naive.matches(filter, $0) }.count
                let (count, stats) = try fixture.store.explainCount(filter)
                #expect(count == want, "\(text): \(count) against \(want)")
                if stats.granulesPruned + stats.blocksPruned > 0 { pruned += 1 }
            }
            #expect(pruned >= 3, "zone maps decided only \(pruned) of \(texts.count) comparisons")
        }
        // a #Predicate with a default takes the same path, and gives Foundation's answer
        let predicate = #Predicate<Quake> { ($0.depth ?? 0) * 2 > 300 }
        let store = Fixtures.generated.store
        let want = try Fixtures.generated.quakes.filter { try predicate.evaluate($0) }.count
        #expect(try store.fetchCount(FetchDescriptor<Quake>(predicate: predicate)) == want)
    }
}
