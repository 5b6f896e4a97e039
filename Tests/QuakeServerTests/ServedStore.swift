import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import QuakeGenerator
@testable import QuakeFormat
@testable import QuakeServer
@testable import QuakeStore
@testable import QuakeTestSupport

/// One generated store for the in-process server tests, and the application `quakes serve` runs
/// over it, built by ``QuakeServer/buildApplication(source:options:ready:)`` and driven through
/// HummingbirdTesting's router framework (no socket).
///
/// The stored rows, read back naively, are the reference every answer is checked against.
enum ServedStore {
    struct Loaded: Sendable {
        let store: Store
        /// Every stored event, tombstones included.
        let all: [Quake]
        /// What the service answers about: every stored event but tombstones.
        var live: [Quake] { all.filter { $0.status != "deleted" } }
    }

    /// 3,000 generated events over 2024, in overlapping snapshots (so revised versions are merged).
    static let loaded: Loaded = {
        let feeds = TestScratch.folder("server-feeds")
        var o = GeneratorOptions(rows: 3000)
        o.firstYear = 2024
        o.lastYear = 2024
        o.rowsPerFile = 1200
        o.seed = 4242
        _ = try! FeedGenerator.generate(o, into: feeds)
        let store = try! Store.openOrCreate(path: TestScratch.folder("server-store") + "/store")
        try! store.load([feeds])
        let b = try! TestSupport.allRows(store)
        return Loaded(store: store, all: (0..<b.count).map { Quake(batch: b, row: $0) })
    }()

    /// The served application, as `run` builds it, without the request log on stderr.
    static func app(maxEvents: Int = 20_000) -> some ApplicationProtocol {
        var o = QuakeServer.Options()
        o.log = nil
        o.maxEvents = maxEvents
        return QuakeServer.buildApplication(source: SnapshotSource(store: loaded.store), options: o).app
    }

    static let rows = HTTPField.Name("X-Quakes-Rows")!
    static let generation = HTTPField.Name("X-Quakes-Generation")!

    /// `YYYY-MM-DD` of a time in milliseconds, UTC.
    static func day(_ ms: Int64) -> String {
        var out: [UInt8] = []
        Timestamp.format(ms, into: &out)
        return String(decoding: out.prefix(10), as: UTF8.self)
    }

    /// The newest stored event's day: a day that has events.
    static var newestDay: String { day(loaded.live.map(\.timeMilliseconds).max()!) }

    /// The event ids of an FDSN `format=text` body, after its header line.
    static func textIds(_ body: String) -> [String] {
        body.split(separator: "\n").dropFirst().map { String($0.split(separator: "|", maxSplits: 1)[0]) }
    }

    static func json(_ body: ByteBuffer) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8))
        guard let dict = object as? [String: Any] else { throw Unexpected(what: "not a JSON object") }
        return dict
    }

    struct Unexpected: Error { let what: String }
}
