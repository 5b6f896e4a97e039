import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// Bulk upsert of feed files into a store: a thin orchestrator of three passes, each a value
/// that takes and returns values, with memory bounded by batch and partition size:
///
/// 1. ``SpillPass``: parse each file in batches and stage rows and id records on disk.
/// 2. ``ResolvePass`` (per id bucket): pick each event's winning version and its moves, and
///    write the changed id-index buckets.
/// 3. ``MergePass`` (per partition): fold versions, compare, and write changed partitions.
///
/// Nothing is visible until the manifest is atomically replaced at the end.
package final class Loader {
    package let storePath: String
    package let old: Manifest
    package let options: LoadOptions
    package let generation: Int
    private let start = Date()

    package init(storePath: String, manifest: Manifest, options: LoadOptions) {
        self.storePath = storePath
        self.old = manifest
        self.options = options
        self.generation = manifest.generation + 1
    }

    /// The one message for a `--strict` load that met rejects.
    package static func strictFailure(rejected count: Int) -> QuakeError {
        .strict("\(count) row\(count == 1 ? "" : "s") rejected; nothing committed")
    }

    /// Reads `paths` and writes the next snapshot's files: its summary, its manifest (nil when
    /// nothing changed) and the files written outside the manifest's list (copies of retired
    /// partitions' ids, store-relative), which the commit flushes with the new ones.
    package func run(_ paths: [String]) throws -> (LoadSummary, Manifest?, unflushed: [String]) {
        let files = try expandInputs(paths)
        let trace = ProcessInfo.processInfo.environment["QUAKES_TRACE"] != nil
        func mark(_ phase: String, _ detail: @autoclosure () -> String = "") {
            // the next pass starts from what this one still holds, once the heap is large
            MallocPolicy.releaseFree(ifResidentAbove: MallocPolicy.keepBelow)
            options.onPhase?(phase)
            guard trace else { return }
            let at = String(format: "%.1f", Date().timeIntervalSince(start) * 1000)
            FileHandle.standardError.write(Data("trace: \(phase) at \(at) ms\(detail())\n".utf8))
        }
        let spills = try SpillSet(directory: storePath + "/tmp", memoryLimit: options.spillMemory)
        let staging = try HistoryStaging(path: spills.directory + "/history.stage")
        // the old projection's threshold is a floor: kept partitions' rows under it are unknown
        let topRows = TopRowsCollector(floor: old.top?.threshold ?? -.infinity, capacity: TopRows.maximumCapacity)
        let direct = directPartitions(spills, staging: staging, topRows: topRows)
        var summary = try SpillPass(spills: spills, partitioning: old.partitioning, options: options, start: start,
                                    direct: direct).run(files)
        mark("spilled", " (\(direct?.written.count ?? 0) partitions written, \(spills.partitions.count) spilled)")
        let report = progress(summary)
        report(.resolve, 0, Manifest.idBucketCount)
        let buckets = Tally()
        try options.checkCancelled()
        var resolve = ResolvePass(storePath: storePath, old: old, generation: generation,
                                  isCancelled: options.isCancelled)
        resolve.newIndexBits = options.idHashBits
        resolve.spillMemory = options.spillMemory
        let resolved = try resolve.run(spills.idBuckets, scratch: spills.directory) {
            report(.resolve, buckets.add(), Manifest.idBucketCount)
        }
        summary.new = resolved.new
        summary.duplicates = resolved.duplicates
        mark("resolved")
        try options.checkCancelled()
        var merge = MergePass(storePath: storePath, old: old, generation: generation, spills: spills,
                              history: staging, direct: direct?.written ?? [:])
        merge.isCancelled = options.isCancelled
        merge.topRows = topRows
        merge.updatesInPlace = options.updatesInPlace
        let total = merge.partitions(resolved)
        report(.merge, 0, total)
        let parts = Tally()
        let merged = try merge.run(resolved) { report(.merge, parts.add(), total) }
        summary.updated = merged.updated
        summary.unchanged = merged.unchanged
        summary.partitionsUpdatedInPlace = merged.inPlace
        summary.keptPreciseTimes = merged.keptPreciseTimes
        if let example = merged.keptPreciseExample { warnKeptPreciseTimes(merged.keptPreciseTimes, example: example) }
        mark("merged")
        try options.checkCancelled()
        if options.strict && summary.rejected > 0 { throw Loader.strictFailure(rejected: summary.rejected) }
        summary.elapsedSeconds = Date().timeIntervalSince(start)
        var next = newManifest(merged.changed, buckets: resolved.buckets)
        var unflushed: [String] = []
        if next.partitions != old.partitions || next.idBuckets != old.idBuckets {
            summary.projection = try Store.attachTopRows(&next, old: old, collected: topRows.take(),
                                                         storePath: storePath, patchesInPlace: options.updatesInPlace)
            mark("projection \(summary.projection.rawValue)")
            if summary.projection == .missing {
                options.onMessage?("warning: the store has no magnitude projection (the last one read damaged "
                    + "or was missing): a top-N by magnitude reads the partitions until 'quakes repair' builds it")
            }
            unflushed = try writeHistory(&next, files: files, staging: staging)
            mark("history written")
        }
        return (summary, next, unflushed)
    }

    /// The writer of new partitions straight from the batches, when the options allow it.
    private func directPartitions(_ spills: SpillSet, staging: HistoryStaging,
                                  topRows: TopRowsCollector) -> DirectPartitions? {
        let direct = options.writesNewPartitions
            ? DirectPartitions(storePath: storePath, scratch: spills.directory, old: old, generation: generation,
                               history: staging, topRows: topRows, rowsLimit: options.newPartitionRows,
                               residentLimit: options.newPartitionResidentLimit)
            : nil
        direct?.isCancelled = options.isCancelled
        return direct
    }

    /// The files `paths` name; a broken symlink among them is skipped with a warning (refused
    /// when strict).
    private func expandInputs(_ paths: [String]) throws -> [String] {
        var broken: [String] = []
        let files = try InputFiles.expand(paths, brokenLinks: &broken)
        for link in broken {
            if options.strict {
                throw QuakeError(.strict, path: link,
                                 detail: "a broken symlink (its target does not exist); nothing committed")
            }
            options.onMessage?("warning: \(link): a broken symlink (its target does not exist): skipped")
        }
        return files
    }

    /// Warns that `count` events kept a precise time over a coarser copy, with one example.
    private func warnKeptPreciseTimes(_ count: Int, example: (id: String, time: Int64, coarse: Int64)) {
        let events = "\(count.grouped) event\(count == 1 ? "" : "s")"
        options.onMessage?("warning: kept the full-precision time of \(events) "
            + "where a version "
            + "with the same 'updated' had a coarser copy, such as \(example.id): "
            + "\(Timestamp.string(example.time)) over "
            + "\(Timestamp.string(example.coarse)); a coarser time never replaces a precise one")
    }

    /// Writes this load's history transaction and names it in `next`; returns the copies of
    /// retired partitions' ids it wrote, for the commit to flush (store-relative).
    private func writeHistory(_ next: inout Manifest, files: [String], staging: HistoryStaging) throws -> [String] {
        // the transaction is written before the commit names it; an uncommitted one is garbage
        let committed = Int64(Date().timeIntervalSince1970 * 1000)
        // kept transactions that refer to a partition file this commit retires keep its ids
        let copies = try HistoryReference.preserve(retired: next.retired, history: old.history.generations,
                                                   storePath: storePath, cancelled: options.isCancelled)
        let sources = files.map { options.sourceNames[$0] ?? $0 }
        _ = try HistoryFile.write(store: storePath, generation: generation, committed: committed,
                                  previous: old.history.latest, files: sources, staged: staging,
                                  cancelled: options.isCancelled)
        next.history.append(generation)
        if next.history.baseTime == HistoryRetention.unknownTime {
            // a store from before history: every earlier commit happened by the time the
            // manifest being replaced was written
            let replaced = FileIO.modifiedMillis(Store.manifestPath(storePath)) ?? committed
            next.history.baseTime = min(committed, replaced)
        }
        return copies
    }

    /// Reports progress of a phase after reading, with the read counts of `summary`.
    private func progress(_ summary: LoadSummary) -> @Sendable (LoadProgress.Phase, Int, Int) -> Void {
        let onProgress = options.onProgress
        let start = start
        return { phase, done, total in
            onProgress?(LoadProgress(phase: phase, done: done, total: total, bytesRead: summary.bytesRead,
                                     rows: summary.rowsRead, elapsedSeconds: Date().timeIntervalSince(start)))
        }
    }

    /// A count shared by worker threads.
    package final class Tally: Sendable {
        private let count = Atomic(0)
        /// Adds one; returns the new count.
        package func add() -> Int { count.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue }
    }

    private func newManifest(_ changed: [Int: PartitionEntry?], buckets: [Int: String]) -> Manifest {
        var manifest = old
        manifest.generation = generation
        var byOrd: [Int: PartitionEntry] = [:]
        for entry in old.partitions {
            byOrd[old.partitioning.ordinal(entry.minTime)] = entry
        }
        for (ordinal, entry) in changed {
            byOrd[ordinal] = entry
        }
        manifest.partitions = byOrd.keys.sorted().compactMap { byOrd[$0] }
        manifest.rows = manifest.partitions.reduce(0) { $0 + $1.rows }
        for (bucket, file) in buckets {
            manifest.idBuckets[bucket] = file
        }
        manifest.retired = Array(old.liveFiles.subtracting(manifest.liveFiles)).sorted()
        return manifest
    }
}
