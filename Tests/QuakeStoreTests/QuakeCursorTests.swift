import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
import QuakeTestSupport

/// The pull cursor returns exactly what one fetch returns, in the same order, for several batch sizes,
/// sorts, limits and offsets, compared with a naive filter and sort of every row.
@Suite struct QuakeCursorTests {
    static func drain(_ c: QuakeCursor) throws -> [String] {
        var ids: [String] = []
        while let q = try c.next() { ids.append(q.id) }
        return ids
    }

    @Test(arguments: [1, 7, 1000, 100_000])
    func cursorEqualsFetchAndTheNaiveReference(batchSize: Int) throws {
        let f = Fixtures.generated
        let minMag = 2.0
        var d = FetchDescriptor<Quake>(predicate: #Predicate { ($0.magnitude ?? -9) >= minMag },
                                       sortBy: [SortDescriptor(\.magnitude, order: .reverse)])
        d.fetchOffset = 3
        d.fetchLimit = batchSize == 1 ? 50 : 2500
        let naive = f.quakes.filter { ($0.magnitude ?? -9) >= minMag }
            .sorted { a, b in
                let x = a.magnitude ?? -.infinity, y = b.magnitude ?? -.infinity
                return x != y ? x > y : a.id < b.id
            }
            .dropFirst(3).prefix(d.fetchLimit!).map(\.id)
        let got = try Self.drain(try f.store.fetchCursor(d, batchSize: batchSize))
        #expect(got == Array(naive))
        #expect(got == (try f.store.fetchIdentifiers(d)))
    }

    @Test func anEmptyResultEndsAtOnce() throws {
        let f = Fixtures.generated
        let d = FetchDescriptor<Quake>(predicate: #Predicate { ($0.magnitude ?? 0) > 100 })
        let c = try f.store.fetchCursor(d, batchSize: 10)
        #expect(try c.next() == nil)
        #expect(try c.next() == nil)
    }
}
