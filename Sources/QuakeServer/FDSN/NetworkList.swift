import Foundation
import QuakeFormat
import QuakeStore

/// The networks of the stored events (`catalogs`, `contributors`), from a grouped count over
/// the dictionary-coded `net` column, remembered for the generation it was computed on.
enum NetworkList {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var cached: (store: String, generation: Int, names: [String])?

    static func names(_ snap: SnapshotSource.Snapshot) throws -> [String] {
        lock.lock()
        if let c = cached, c.store == snap.store.path, c.generation == snap.generation {
            lock.unlock()
            return c.names
        }
        lock.unlock()
        let (rows, _) = try snap.store.aggregate(.all, by: [.value(.net)], metrics: [.count])
        let names = rows.compactMap { $0.keys.first ?? nil }.filter { !$0.isEmpty }.sorted()
        lock.lock()
        cached = (snap.store.path, snap.generation, names)
        lock.unlock()
        return names
    }
}
