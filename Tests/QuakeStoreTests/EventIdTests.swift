import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
import QuakeTestSupport

/// The FDSN `eventid` filter: an event's preferred id finds that event alone, through the id
/// index; an id no event has as its own finds the events whose `ids` lists hold it.
@Suite struct EventIdTests {
    static func quake(_ id: String, ids: String?, month: Int) -> Quake {
        var quake = Quake(id: id, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(month) * 31 * 86_400),
                          latitude: 61.2, longitude: -149.9, depth: 10, magnitude: 3.0,
                          place: "10 km N of Anchorage, Alaska")
        quake.ids = ids
        return quake
    }

    /// The reference: the events whose own id is `id` when there are any, else those listing it.
    static func expected(_ quakes: [Quake], _ id: String) -> Set<String> {
        let own = quakes.filter { $0.id == id }
        let found = own.isEmpty ? quakes.filter { ($0.ids ?? "").contains("," + id + ",") } : own
        return Set(found.map(\.id))
    }

    @Test func aPreferredIdFindsItsEventThroughTheIndexAndAnAliasSearchesTheLists() throws {
        let dir = TestSupport.tempDir()
        let store = try Store.openOrCreate(path: dir + "/s")
        // months apart, so that the id index can leave partitions out
        let quakes = [
            Self.quake("ak001", ids: ",ak001,us777,", month: 0),
            Self.quake("us888", ids: ",us888,ak001,", month: 3),   // lists another event's own id
            Self.quake("nc222", ids: ",nc222,us777,", month: 6),   // shares an alias with ak001
            Self.quake("ci333", ids: nil, month: 9),
        ]
        try store.upsert(quakes)
        for id in ["ak001", "us888", "nc222", "ci333", "us777", "ak00", "zz999"] {
            let (count, stats) = try store.explainCount(.eventId(id))
            #expect(count == Self.expected(quakes, id).count, "\(id)")
            let found = try store.query(QuerySpec(filter: .eventId(id), sort: [SortKey(.id)])).ids
            #expect(Set(found) == Self.expected(quakes, id), "\(id)")
            if quakes.contains(where: { $0.id == id }) {
                #expect(stats.partitionsPrunedByIdIndex > 0, "\(id): read through the id index")
            }
        }
        // beside other conditions, as the service and --eventid give it
        let both = Filter.conjunction([.eventId("ak001"), .numberRange(.mag, lower: .init(2.0), upper: nil)])
        #expect(try store.count(both) == 1)
    }

    /// An event merged into another is deleted upstream, and the merged one lists its id: asked
    /// for that id, the store answers with the merged event, not with nothing.
    @Test func theIdOfAMergedAwayEventFindsTheEventItWasMergedInto() throws {
        let dir = TestSupport.tempDir()
        let store = try Store.openOrCreate(path: dir + "/s")
        let stale = Self.quake("us555", ids: ",us555,", month: 1)
        let merged = Self.quake("ci666", ids: ",ci666,us555,", month: 1)
        try store.upsert([stale, merged, Self.quake("nc777", ids: nil, month: 4)])
        let live = Filter.conjunction([.eventId("us555"), .notDeleted])
        #expect(Set(try store.query(QuerySpec(filter: live, sort: [SortKey(.id)])).ids) == ["us555"])
        #expect(try store.delete(ids: ["us555", "missing"]).updated == 1)
        #expect(Set(try store.query(QuerySpec(filter: live, sort: [SortKey(.id)])).ids) == ["ci666"])
        #expect(try store.count(.conjunction([.oneOf(.id, ["us555"]), .notDeleted])) == 0)
    }
}
