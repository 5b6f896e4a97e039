import Foundation
import QuakeFormat
import QuakeStore

extension Store {
    /// What a run faced: the rows of the partitions `filter`'s time bounds leave, and the
    /// on-disk bytes of the columns the run read in them: the columns ``QueryStats/columnsRead``
    /// names (`needed` when the run reports none but scanned rows). A run that scanned no row
    /// read no bytes.
    package func readScope(_ filter: Filter, stats: QueryStats?, needed: ColumnSet) -> BenchScope {
        let scanned = stats.map { $0.rowsEstimated > 0 || $0.granulesScanned > 0 || $0.blocksScanned > 0 } ?? false
        let named = ColumnSet((stats?.columnsRead ?? []).compactMap { Column(name: $0) })
        let columns: ColumnSet = scanned ? (named.bits == 0 ? needed : named) : []
        let (lower, upper) = filter.timeBounds
        var scope = BenchScope(rows: 0, bytes: 0)
        for entry in manifest.partitions {
            if let lower, entry.maxTime < lower { continue }
            if let upper, entry.minTime >= upper { continue }
            scope.rows += entry.rows
            guard columns.bits != 0, let directory = try? reader(entry).directory() else { continue }
            for column in columns {
                for chunk in directory.chunks[column.rawValue] { scope.bytes += chunk.length }
            }
        }
        return scope
    }

    /// Opening the store at `path` from nothing and planning a query for `filter`: read and check
    /// the manifest, prune partitions by time, read and check the chunk directories (zone maps
    /// and granules) of the partitions left. What a one-shot CLI query pays before any scan.
    /// Its answer is the number of partitions planned.
    package static func openAndPlanCase(path: String, filter: Filter, name: String) -> BenchCase {
        BenchCase(name: name, kind: "open",
                  sql: .failure(.unsupported("opening and planning has no SQL counterpart")),
                  run: {
                      let store = try Store(path: path)
                      let (lower, upper) = filter.timeBounds
                      var planned = 0
                      for entry in store.manifest.partitions {
                          if let lower, entry.maxTime < lower { continue }
                          if let upper, entry.minTime >= upper { continue }
                          _ = try store.reader(entry).directory()
                          planned += 1
                      }
                      return BenchOutcome(rowsReturned: planned, stats: nil)
                  },
                  printed: { "" },
                  scope: { _ in BenchScope(rows: 0, bytes: 0) })
    }

    /// Every regular file under the store's directory.
    package func files() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: path) else { return [] }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            let full = path + "/" + relative
            if !FileIO.isDirectory(full) { found.append(full) }
        }
        return found.sorted()
    }

    /// Drops every file of the store from the page cache (see ``FileIO/dropFromPageCache(_:)``);
    /// returns how many files it advised. The cached partition readers go first, unmapping their
    /// files, since the kernel keeps the pages a live mapping holds.
    @discardableResult
    package func dropFromPageCache() throws(QuakeError) -> Int {
        for entry in manifest.partitions { dropReader(entry) }
        let all = files()
        for file in all { try FileIO.dropFromPageCache(file) }
        return all.count
    }
}
