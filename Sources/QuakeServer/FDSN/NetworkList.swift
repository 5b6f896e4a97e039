import Foundation
import QuakeFormat
import QuakeSupport
import QuakeStore
import Synchronization

/// The networks of the stored events (`catalogs`, `contributors`), from a grouped count over
/// the dictionary-coded `net` column, remembered for the generation it was computed on.
enum NetworkList {
    private static let cached = Mutex<(store: String, generation: Int, names: [String])?>(nil)

    static func names(_ snap: SnapshotSource.Snapshot) throws -> [String] {
        let hit = cached.locked { kept -> [String]? in
            guard let kept, kept.store == snap.store.path, kept.generation == snap.generation else { return nil }
            return kept.names
        }
        if let hit { return hit }
        let (rows, _) = try snap.store.aggregate(.all, by: [.value(.net)], metrics: [.count])
        let names = rows.compactMap { $0.keys.first ?? nil }.filter { !$0.isEmpty }.sorted()
        cached.locked { $0 = (snap.store.path, snap.generation, names) }
        return names
    }
}
