import Foundation
import QuakeFormat

/// A source's cursor, kept in the store's manifest under ``key`` and committed with the rows it
/// describes: a `kill -9` at any instant leaves the two in step.
struct SyncCursor: Codable, Equatable {
    /// The source's URL and its filter's canonical text.
    var source: String
    var filter: String
    /// `updatedafter` for the next sync (epoch ms); nil until a first sync completes.
    var since: Int64?
    /// The latest `updated` among the events synced.
    var maxUpdated: Int64?
    /// A first sync in progress: its window, when it was planned, and the time its committed
    /// pieces reach (exclusive).
    var plan: Plan?
    /// A summary feed's validators, for a conditional GET.
    var etag: String?
    var lastModified: String?
    /// The window's first event time (inclusive) a first sync settled on: later syncs keep to it.
    var windowStart: Int64?
    /// A summary feed's unfilled gap: the last sync before a window was missed (epoch ms), kept
    /// until a backfill fills it.
    var gapSince: Int64?
    /// When the last successful sync began (epoch ms).
    var lastSync: Int64?
    /// Events committed through this cursor, in all.
    var events = 0

    struct Plan: Codable, Equatable {
        var start: Int64
        var end: Int64
        var madeAt: Int64
        var doneThrough: Int64
    }

    /// The manifest key of the cursor for `source` and `filter`.
    static func key(_ source: SyncSource, _ filter: SyncFilter) -> String {
        switch source {
        case .fdsn(let url): return "fdsn " + url + "?" + filter.key
        case .feed(let url): return "feed " + url
        }
    }

    func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The cursor stored under `key` in `m`, if any. A value this build cannot read is an error:
    /// the store would otherwise sync again from scratch without a word.
    static func stored(_ key: String, in m: Manifest, storePath: String) throws(QuakeError) -> SyncCursor? {
        guard let record = m.cursors.first(where: { $0.key == key }) else { return nil }
        do {
            return try JSONDecoder().decode(SyncCursor.self, from: Data(record.value.utf8))
        } catch {
            throw QuakeError(.corrupt, path: storePath + "/" + Manifest.fileName,
                             detail: "the sync cursor of \(key) does not read")
        }
    }
}
