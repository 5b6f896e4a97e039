import Foundation
import QuakeFormat
import QuakeStore
import QuakeSync

/// `quakes info --json`: the store's figures, and under `sync` each source's cursor, with its
/// times as ISO 8601 text (null where there is none yet).
struct InfoDocument: Encodable {
    let info: StoreInfo
    let cursors: [SyncCursorInfo]

    private enum Keys: String, CodingKey {
        case sync
    }

    /// One cursor, as JSON shows it.
    private struct Cursor: Encodable {
        let kind: String
        let source: String
        let filter: String
        /// The next sync's `updatedafter`; null while a first sync is unfinished.
        let nextUpdatedAfter: String?
        let newestUpdate: String?
        let lastSync: String?
        /// An unfinished first sync: the time its committed pieces reach, and its window's end.
        let firstSyncThrough: String?
        let firstSyncEnd: String?
        let etag: String?
        let lastModified: String?
        let events: Int

        init(_ cursor: SyncCursorInfo) {
            func text(_ millis: Int64?) -> String? { millis.map { Timestamp.string($0) } }
            kind = cursor.kind
            source = cursor.source
            filter = cursor.filter
            nextUpdatedAfter = text(cursor.since)
            newestUpdate = text(cursor.maxUpdated)
            lastSync = text(cursor.lastSync)
            firstSyncThrough = text(cursor.firstSyncThrough?.0)
            firstSyncEnd = text(cursor.firstSyncThrough?.1)
            etag = cursor.etag
            lastModified = cursor.lastModified
            events = cursor.events
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            try container.encode(source, forKey: .source)
            try container.encode(filter, forKey: .filter)
            try container.encode(nextUpdatedAfter, forKey: .nextUpdatedAfter)
            try container.encode(newestUpdate, forKey: .newestUpdate)
            try container.encode(lastSync, forKey: .lastSync)
            try container.encode(firstSyncThrough, forKey: .firstSyncThrough)
            try container.encode(firstSyncEnd, forKey: .firstSyncEnd)
            try container.encode(etag, forKey: .etag)
            try container.encode(lastModified, forKey: .lastModified)
            try container.encode(events, forKey: .events)
        }

        private enum CodingKeys: String, CodingKey {
            case kind, source, filter, nextUpdatedAfter, newestUpdate, lastSync, firstSyncThrough, firstSyncEnd
            case etag, lastModified, events
        }
    }

    func encode(to encoder: any Encoder) throws {
        try info.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(cursors.map(Cursor.init), forKey: .sync)
    }
}
