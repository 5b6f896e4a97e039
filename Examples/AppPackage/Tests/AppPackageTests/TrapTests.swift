import Foundation
import QuakeStore
import Testing

/// Arguments at the edges of their ranges, each in a Probe process of its own: a trap fails the
/// one test that met it.
@Suite("No traps from caller input")
struct TrapTests {
    static func probe(_ scenario: String, _ extra: [String] = []) throws -> ProbeResult {
        let store = try Generated.smallStore.get()
        return try Probe.run([scenario, store] + extra)
    }

    @Test("fetchLimit = .max with a sort returns every event")
    func limitMax() throws {
        let r = try Self.probe("limit-max")
        #expect(r.finished, "\(r)")
        let all = try #require(r.int("all"))
        #expect(all == 3000)
        for name in probeSortNames {
            #expect(r.int("fetch.\(name)") == all, "fetch, \(name)")
            #expect(r.int("count.\(name)") == all, "fetchCount, \(name)")
            #expect(r.int("ids.\(name)") == all, "fetchIdentifiers, \(name)")
        }
    }

    @Test("limits and offsets near Int.max: no overflow, the right counts")
    func limitHuge() throws {
        let r = try Self.probe("limit-huge")
        #expect(r.finished, "\(r)")
        for name in ["nearMax", "maxOffsetMax", "halves", "maxOffset3"] {
            let expected = try #require(r.int("expected.\(name)"))
            for sort in probeSortNames.prefix(3) {
                #expect(r.int("fetch.\(name).\(sort)") == expected, "fetch \(name) \(sort)")
                #expect(r.int("count.\(name).\(sort)") == expected, "fetchCount \(name) \(sort)")
                #expect(r.int("enumerate.\(name).\(sort)") == expected, "enumerate \(name) \(sort)")
            }
        }
    }

    @Test("enumerate(batchSize: .max) and fetchCursor(batchSize: .max) visit every event")
    func enumerateMax() throws {
        let r = try Self.probe("enumerate-max")
        #expect(r.finished, "\(r)")
        let all = try #require(r.int("all"))
        for name in probeSortNames {
            #expect(r.int("enumerate.\(name)") == all, "\(name)")
            #expect(r.int("cursor.\(name)") == all, "\(name)")
            #expect(r.int("enumerateLimitMax.\(name)") == all, "\(name)")
        }
    }

    @Test("fetchSections(limitPerSection: .max) holds every event")
    func sectionsMax() throws {
        let r = try Self.probe("sections-max")
        #expect(r.finished, "\(r)")
        let all = try #require(r.int("all"))
        for name in ["net", "month", "mag"] {
            #expect(r.int("elements.\(name)") == all, "\(name)")
            #expect(r.int("totals.\(name)") == all, "\(name)")
            #expect(r.int("pagedElements.\(name)") == all, "\(name)")
            #expect(r.int("pagedTotals.\(name)") == all, "\(name)")
        }
    }

    @Test("a bin width too small for an integer key: refused, or no event with a depth lands in the nil group")
    func binTiny() throws {
        let r = try Self.probe("bin-tiny")
        #expect(!r.terminatedBySignal && r.status == 0, "\(r)")
        if r["error"] == nil {
            #expect(r.finished, "\(r)")
            #expect(r.int("nilGroup") == r.int("nilDepth"), "events with a depth keyed as nil: \(r)")
            #expect(r.int("total") == 3000)
        } else {
            #expect(r["error"] == QuakeError.Kind.invalidArgument.rawValue, "\(r)")
        }
    }

    @Test("a bad argument throws invalidArgument, naming it", arguments: [
        "avg-net", "sum-place", "bin-net", "bin-zero", "bin-negative", "bin-nan", "percentile-150",
        "percentile-negative", "offset-negative", "limit-negative", "count-limit-negative", "batch-zero",
        "batch-negative", "cursor-zero", "sections-negative", "sections-bin-zero",
    ])
    func invalidArgument(_ call: String) throws {
        let r = try Self.probe("invalid", [call])
        #expect(!r.terminatedBySignal && r.status == 0, "\(r)")
        #expect(r["error"] == QuakeError.Kind.invalidArgument.rawValue, "\(call): \(r)")
        #expect(r["errorHasDetail"] == "1", "\(call): the detail names the argument")
        #expect(r["result"] == nil, "\(call) returned an answer: \(r)")
    }
}

/// The sort names of Probe's `probeSorts`, in its order.
let probeSortNames = ["magnitudeReverse", "magnitude", "timeReverse", "depth", "placeLexical", "placeLocalized"]
