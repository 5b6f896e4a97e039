import Foundation
import QuakeFormat

/// What ``Store/compact(path:)`` did.
public struct CompactReport: Sendable, CustomStringConvertible {
    /// The generation committed, or the current one when there was nothing to do.
    public let generation: Int
    /// Partitions of the catalog delta folded into a catalog written whole; 0 when the catalog
    /// had no delta.
    public let foldedPartitions: Int
    /// The magnitude projection's rows and threshold before and after, when it was rebuilt.
    public let projection: Projection?

    /// True when the catalog or its delta read damaged and the catalog was written whole from
    /// the partitions instead.
    public internal(set) var rebuiltDamagedCatalog = false

    /// Whether anything was committed.
    public var changed: Bool { foldedPartitions > 0 || rebuiltDamagedCatalog || projection != nil }

    /// One line, as `quakes compact` prints it: what was folded, or that there was nothing to do.
    public var description: String {
        var done: [String] = []
        if rebuiltDamagedCatalog {
            done.append("rebuilt the store catalog from the partitions (it or its delta read damaged)")
        } else if foldedPartitions > 0 {
            done.append("folded the catalog delta (\(foldedPartitions) partition\(foldedPartitions == 1 ? "" : "s")) "
                + "into a whole catalog")
        }
        if let projection {
            func threshold(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "none" }
            done.append("rebuilt the magnitude projection (\(projection.rowsBefore) → \(projection.rowsAfter) rows, "
                + "threshold \(threshold(projection.thresholdBefore)) → \(threshold(projection.thresholdAfter)))")
        }
        guard !done.isEmpty else {
            return "nothing to compact: the catalog has no delta and the magnitude projection is as a rebuild "
                + "makes it (generation \(generation))"
        }
        return done.joined(separator: "; ") + " at generation \(generation)"
    }
}

extension Store {
    /// Folds what small commits leave for later into whole files, as a commit of its own: the
    /// catalog delta (the partitions small commits replaced since the store catalog was written)
    /// into a catalog written whole, and a magnitude projection
    /// that commits revising its strongest events down have left smaller than a rebuild would
    /// make it. The rows do not change. Loads fold the delta themselves once it passes its
    /// limits, so this is never needed for reads to stay fast; it lets an idle store start
    /// from whole files. Takes the writer lock; a crash during it leaves the snapshot before.
    /// - Complexity: O(partitions × magnitudes) for the catalog, and one read of every
    ///   partition's rows for the projection: O(rows).
    public static func compact(path: String) throws(QuakeError) -> CompactReport {
        try compact(path: path, lockWait: .never)
    }

    /// ``compact(path:)``, waiting for the writer lock as `lockWait` allows (asking `cancelled`
    /// meanwhile): `quakes compact --wait`.
    package static func compact(path: String, lockWait: LockWait,
                                cancelled: (@Sendable () -> Bool)? = nil) throws(QuakeError) -> CompactReport {
        try requireDirectory(path)
        // a folder that is no store gets no LOCK file
        guard FileIO.exists(manifestPath(path)) else {
            throw QuakeError(.notFound, path: path, detail: "no store (no \(Manifest.fileName))")
        }
        let lock = try writerLock(path: path, wait: lockWait, cancelled: cancelled)
        defer { withExtendedLifetime(lock) {} }
        let current = try Manifest.read(path: manifestPath(path))
        collectGarbage(current, storePath: path)
        var next = current
        next.generation += 1
        var folded = 0
        var damaged = false
        if current.catalogDelta != nil {
            // a catalog or delta that reads damaged is written whole from the partitions, as a load does
            let catalog = try? openCatalog(current, storePath: path, files: current.partitions.map(\.file))
            folded = catalog?.delta?.entries.count ?? 0
            damaged = catalog == nil
            try attachCatalog(&next, storePath: path, fold: true)
        }
        var projection: CompactReport.Projection?
        if current.rows >= TopRows.minimumStoreRows {
            var rebuilt = next
            try rebuildTopRows(&rebuilt, storePath: path)
            let before = current.top
            let after = rebuilt.top
            if before?.rows != after?.rows || before?.threshold != after?.threshold {
                next = rebuilt
                projection = (before?.rows ?? 0, before?.threshold, after?.rows ?? 0, after?.threshold)
            } else if let file = after?.file, file != before?.file {
                FileIO.remove(path + "/partitions/" + file)
            }
        }
        guard folded > 0 || damaged || projection != nil else {
            return CompactReport(generation: current.generation, foldedPartitions: 0, projection: nil)
        }
        next.retired = Array(current.liveFiles.subtracting(next.liveFiles)).sorted()
        next = try commit(next, storePath: path)
        collectGarbage(next, storePath: path)
        var report = CompactReport(generation: next.generation, foldedPartitions: folded, projection: projection)
        report.rebuiltDamagedCatalog = damaged
        return report
    }
}

extension CompactReport {
    /// The projection's rows and threshold before and after a rebuild.
    public typealias Projection = (rowsBefore: Int, thresholdBefore: Double?, rowsAfter: Int, thresholdAfter: Double?)
}
