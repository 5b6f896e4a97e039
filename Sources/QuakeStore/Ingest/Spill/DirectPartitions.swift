import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// Partitions a load writes straight from its parsed batches, without the spill: a partition
/// the store does not hold yet collects its rows in memory while the input runs through it,
/// and is sorted, encoded and written as soon as the input has moved on. Feeds are in time
/// order, and a split parse hands its batches over in file order, so each partition arrives as
/// one run.
///
/// The file written is the partition the merge would write when the load turns out to be a
/// plain bulk insert (no id repeats, no moves, no later rows for it). Otherwise it is only a
/// stage: the merge reads it back with each row's load order and source columns, kept beside
/// it in the scratch folder, and merges as if the rows had been spilled. Either way the result
/// is the same store.
///
/// Encoding and writing run on writer threads (``inFlight`` at once), so parsing goes on meanwhile.
///
/// The partitions open when an input file ends stay open into the next file, which usually
/// starts in the month the last one ended in (an archive cut into files by size). Until a later
/// file ends, a failure of it gives them back their earlier rows: the rows themselves while they
/// are open, or read back from what the writer wrote (``rollBack()``).
///
/// Memory: at most ``maxOpen`` partitions of at most ``openRowsLimit`` rows together, and
/// ``inFlight`` more being written. A partition that alone outgrows the limit (a year of a
/// large archive) is handed to the spill instead, and the rest of its rows follow it there; one
/// that holds rows of an ended file goes to the writer instead, where a failure can find them.
///
/// Not Sendable: the loader's thread alone calls it. What the writer threads share is a
/// `Writer` of its own, which is.
package final class DirectPartitions {
    /// Partitions collected at once (the one being fed, and the one before it for rows slightly late).
    package static let maxOpen = 2
    /// Rows the open partitions may hold together before the least recently fed is written.
    package static let openRowsLimit = 1 << 19
    /// Resident bytes above which the heap is trimmed after a partition is written. Trimming
    /// returns freed pages that the next partition faults in again: at 512 MB, a 100 M-row load
    /// trimmed after nearly every partition and spent 65 s in the kernel, most of it faulting.
    package static let trimAbove = 768 << 20
    /// Resident bytes above which no new partition is collected (see ``takes(_:)``).
    package static let residentLimit = 800 << 20
    /// Partitions handed to the writers and not yet written: encoding is most of a bulk
    /// load's work, and one writer thread was busy for 10.6 of the 14 s of a 10 M-row load.
    package static let inFlight = 2

    /// A partition written directly: its entry and where its rows' load order lies (bytes
    /// `sideOffset...` of the scratch file `sidePath`, which every partition of the load shares).
    package struct Written: Sendable {
        package let entry: PartitionEntry
        package let sidePath: String
        package let sideOffset: Int
    }

    package let storePath: String
    package let scratch: String
    package let generation: Int
    package let blockRows: Int
    /// Gathers the rows of each partition written that the magnitude projection can need.
    let topRows: TopRowsCollector?
    package let partitioning: Partitioning
    package let history: HistoryStaging
    /// Rows the open partitions may hold together (``openRowsLimit`` unless a test says).
    package let rowsLimit: Int
    /// Resident bytes beyond which no partition is begun (``residentLimit`` unless a test says).
    package let residentCap: Int
    /// Where a partition too large to collect goes: the spill, with the rows it has so far.
    package var spill: (Int, RowBatch) throws -> Void = { _, _ in }
    /// Asked by each queued partition before it is written: a cancelled load skips the rest, so
    /// that the end of the input does not write every open partition first (``LoadOptions/isCancelled``).
    package var isCancelled: (@Sendable () -> Bool)?
    /// Ordinals the store holds: their rows are merged with the stored ones, through the spill.
    private let stored: Set<Int>
    // the loader's thread only:
    private var open: [Int: (rows: RowBatch, fed: Int)] = [:]
    private var openRows = 0
    private var clock = 0
    /// Partitions handed to the writer: a later row for one goes to the spill, and the merge
    /// folds the two.
    private var closed: Set<Int> = []
    /// Handed to the writer since the current input file began: a failed file removes them.
    private var closedThisFile: [Int] = []
    /// Per partition open when the last input file ended, its rows from ended files: the first
    /// rows of its batch while it stays open.
    private var carried: [Int: Int] = [:]
    /// The highest load order of a row appended, and of one from an ended input file.
    private var lastSeq = Int64.min, endedSeq = Int64.min
    /// The rows, and bytes per text column, of the partition last handed to the writer: a new
    /// one is sized for as much, since it grows by doubling otherwise, copying each column again
    /// and faulting in fresh pages at every step.
    private var lastShape: (rows: Int, textBytes: [Int]) = (0, [])
    // the writers': at most `inFlight` partitions at once, each on a thread
    private let queue = DispatchQueue(label: "quakes.load.direct", attributes: .concurrent)
    private let slots = DispatchSemaphore(value: DirectPartitions.inFlight)
    private let group = DispatchGroup()
    private let writer: Writer

    package init(storePath: String, scratch: String, old: Manifest, generation: Int, history: HistoryStaging,
                 topRows: TopRowsCollector? = nil, rowsLimit: Int = DirectPartitions.openRowsLimit,
                 residentLimit: Int = DirectPartitions.residentLimit) {
        self.storePath = storePath
        self.rowsLimit = rowsLimit
        self.residentCap = residentLimit
        self.scratch = scratch
        self.generation = generation
        self.blockRows = old.blockRows
        self.partitioning = old.partitioning
        self.history = history
        self.topRows = topRows
        stored = Set(old.partitions.map { old.partitioning.ordinal($0.minTime) })
        writer = Writer(storePath: storePath, scratch: scratch, generation: generation, blockRows: old.blockRows,
                        partitioning: old.partitioning, history: history, topRows: topRows)
    }

    /// Whether rows of partition `o` are collected here rather than spilled. A partition not
    /// begun yet is only begun while the process stays under ``residentLimit``, once the heap's
    /// free pages are returned: beyond it, the rest of the load goes through the spill, whose
    /// memory is bounded by batch size.
    package func takes(_ o: Int) -> Bool {
        if stored.contains(o) || closed.contains(o) { return false }
        if open[o] != nil { return true }
        if let resident = MallocPolicy.residentBytes(), resident > residentCap {
            // freed pages count toward the resident set until they are trimmed: trim before refusing
            MallocPolicy.releaseFree()
            if let after = MallocPolicy.residentBytes(), after > residentCap {
                closed.insert(o)
                closedThisFile.append(o)
                return false
            }
        }
        return true
    }

    /// Partitions written; complete once ``writeAll()`` has returned.
    package var written: [Int: Written] { writer.state.locked { $0.done } }

    /// Adds rows `range` of `batch`, all in partition `o` (``takes(_:)`` must hold).
    package func append(_ batch: RowBatch, range: Range<Int>, partition o: Int) throws {
        try checkFailure()
        clock += 1
        if open[o] == nil { open[o] = (sized(), 0) }
        open[o]?.rows.append(contentsOf: batch, range: range)
        open[o]?.fed = clock
        openRows += range.count
        if let newest = batch.seq[range].max() { lastSeq = max(lastSeq, newest) }
        if let rows = open[o]?.rows, rows.count > rowsLimit {
            if carried[o] != nil {
                // rows of an ended file go to the writer, where a failure of this file finds them
                hand(o)
            } else {
                open[o] = nil
                openRows -= rows.count
                closed.insert(o)
                closedThisFile.append(o)
                try spill(o, rows)
            }
        }
        while open.count > DirectPartitions.maxOpen || openRows > rowsLimit {
            guard let lru = open.min(by: { $0.value.fed < $1.value.fed })?.key else { break }
            hand(lru)
        }
    }

    /// Ends an input file: its rows are now kept whatever a later file does. The partitions open
    /// stay open for the next file.
    package func endFile() throws(QuakeError) {
        carried = open.mapValues { $0.rows.count }
        endedSeq = lastSeq
        closedThisFile = []
        try checkFailure()
    }

    /// Writes every open partition and waits for the writer: at the end of the input.
    package func writeAll() throws(QuakeError) {
        for o in open.keys.sorted() { hand(o) }
        group.wait()
        carried = [:]
        closedThisFile = []
        try checkFailure()
    }

    /// Forgets the current file: drops its rows, removes what it wrote, and gives the partitions
    /// carried from ended files back their rows (read back from the writer's files if handed).
    package func rollBack() throws(QuakeError) {
        group.wait()
        var kept: [Int: (rows: RowBatch, fed: Int)] = [:]
        for (o, entry) in open {
            guard let carriedRows = carried[o], carriedRows > 0 else { continue }
            var rows = RowBatch()
            rows.append(contentsOf: entry.rows, range: 0..<carriedRows)
            kept[o] = (rows, entry.fed)
        }
        let ordinals = closedThisFile
        let handed = writer.state.locked { shared in ordinals.map { ($0, shared.done.removeValue(forKey: $0)) } }
        closedThisFile = []
        for (o, written) in handed {
            closed.remove(o)
            guard let written else { continue }
            if let carriedRows = carried[o], carriedRows > 0 {
                let rows = try DirectPartitions.rows(written, storePath: storePath)
                let endedSeq = endedSeq
                let earlier = rows.seq.indices.filter { rows.seq[$0] <= endedSeq }
                guard earlier.count == carriedRows else {
                    throw .corrupt(written.sidePath,
                                   "\(earlier.count) rows of ended files read back, \(carriedRows) written")
                }
                clock += 1
                kept[o] = (rows.gather(earlier), clock)
            }
            FileIO.remove(storePath + "/partitions/" + written.entry.file)
            history.discard(ordinal: o)
        }
        open = kept
        openRows = kept.values.reduce(0) { $0 + $1.rows.count }
        lastSeq = endedSeq
    }

    /// Waits until the writer is idle: a load that fails stops here before its files are removed.
    package func wait() { group.wait() }

    private func checkFailure() throws(QuakeError) {
        if let failure = writer.state.locked({ $0.failure }) { throw failure }
    }

    /// An empty partition sized like the last one handed to the writer, a little larger.
    private func sized() -> RowBatch {
        var batch = RowBatch()
        guard lastShape.rows > 0 else { return batch }
        let rows = min(lastShape.rows + lastShape.rows / 4, rowsLimit + rowsLimit / 8)
        batch.reserveCapacity(rows: rows, textBytes: lastShape.textBytes.map { $0 * rows / lastShape.rows + 64 })
        return batch
    }

    /// Hands partition `o` to the writer, waiting while ``inFlight`` are queued.
    private func hand(_ o: Int) {
        guard let rows = open.removeValue(forKey: o)?.rows else { return }
        lastShape = (rows.count, rows.text.map { $0.bytes.count })
        openRows -= rows.count
        closed.insert(o)
        closedThisFile.append(o)
        slots.wait()
        group.enter()
        // the writer takes the only reference, so sorting reorders the columns in place
        let box = Handoff(rows)
        let writer = writer
        let slots = slots
        let group = group
        let isCancelled = isCancelled
        let scratch = scratch
        queue.async {
            defer {
                slots.signal()
                group.leave()
            }
            if isCancelled?() == true {
                // named in the store, so that it stops the load rather than reject the file being read
                let interrupted = QuakeError(.interrupted, path: scratch, detail: "interrupted")
                writer.state.locked { state in if state.failure == nil { state.failure = interrupted } }
                return
            }
            do throws(QuakeError) {
                let written = try writer.write(o, box.take())
                // what encoding it freed, once the process is large (a large archive's partitions)
                MallocPolicy.releaseFree(ifResidentAbove: DirectPartitions.trimAbove)
                writer.state.locked { $0.done[o] = written }
            } catch {
                writer.state.locked { state in if state.failure == nil { state.failure = error } }
            }
        }
    }

    /// Per row, its load order then its source columns, as little-endian 64-bit words.
    fileprivate static func side(_ rows: RowBatch) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(16 * rows.count)
        // SAFETY: each closure reads the 8 bytes of one local integer, within its lifetime.
        for seq in rows.seq { withUnsafeBytes(of: seq.littleEndian) { out.append(contentsOf: $0) } }
        for present in rows.present { withUnsafeBytes(of: present.littleEndian) { out.append(contentsOf: $0) } }
        return out
    }

    /// The rows of a written partition as the spill would have given them: read back, with
    /// each row's load order and source columns.
    package static func rows(_ w: Written, storePath: String) throws(QuakeError) -> RowBatch {
        var batch = try PartitionReader(storePath: storePath, entry: w.entry).readAll()
        let count = batch.count
        let fd = try FileIO.open(w.sidePath, O_RDONLY)
        defer { FileIO.close(fd) }
        let side = try FileIO.preadExactly(fd, count: 16 * count, at: w.sideOffset, path: w.sidePath)
        // SAFETY: `side` holds exactly 16 * count bytes (preadExactly); every load lies inside it, and
        // the batch's columns hold count rows (readAll); unaligned loads need no alignment.
        assert(side.count == 16 * count && batch.seq.count == count && batch.present.count == count)
        side.withUnsafeBytes { raw in
            for i in 0..<count {
                batch.seq[i] = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: 8 * i, as: Int64.self))
                batch.present[i] = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8 * (count + i),
                                                                          as: UInt64.self))
            }
        }
        return batch
    }
}

/// What the writer threads of a ``DirectPartitions`` share: the settings they write with, and,
/// in a Mutex, the partitions written, the first failure and the side file.
private final class Writer: Sendable {
    let storePath: String
    let scratch: String
    let generation: Int
    let blockRows: Int
    let partitioning: Partitioning
    let history: HistoryStaging
    let topRows: TopRowsCollector?
    struct State {
        var done: [Int: DirectPartitions.Written] = [:]
        var failure: QuakeError?
        /// The side file, opened by the first writer, and the bytes reserved in it so far: one file
        /// for the load, since creating a file per partition cost a load of 1 M GeoJSON features
        /// 3 % of its time (more on a file system without a journal, after a store was deleted).
        var sideFD: Int32 = -1
        var sideSize = 0
    }
    let state = Mutex(State())

    init(storePath: String, scratch: String, generation: Int, blockRows: Int, partitioning: Partitioning,
         history: HistoryStaging, topRows: TopRowsCollector?) {
        self.storePath = storePath
        self.scratch = scratch
        self.generation = generation
        self.blockRows = blockRows
        self.partitioning = partitioning
        self.history = history
        self.topRows = topRows
    }

    deinit {
        let fd = state.locked { $0.sideFD }
        if fd >= 0 { FileIO.close(fd) }
    }

    /// Sorts, encodes and writes partition `o`, with its history section and its rows' load
    /// order and source columns.
    func write(_ o: Int, _ batch: consuming RowBatch) throws(QuakeError) -> DirectPartitions.Written {
        var rows = batch
        var changes = ChangeSet()
        changes.inserted = rows.text[Column.id.rawValue]
        for t in rows.ints[Column.time.rawValue] { changes.touch(t) }
        rows.sortByTimeId()
        let key = partitioning.key(ordinal: o)
        let (side, at) = try appendSide(DirectPartitions.side(rows))
        let file = "\(key).g\(generation).\(PartitionFile.fileExtension)"
        let entry = try PartitionWriter.write(rows, key: key, file: file, storePath: storePath, blockRows: blockRows)
        topRows?.offer(rows, file: file)
        try history.append(ordinal: o, changes.encoded(key: key, partitionRows: entry.rows))
        return DirectPartitions.Written(entry: entry, sidePath: side, sideOffset: at)
    }

    /// Writes `bytes` at the end of the side file; returns its path and where they start.
    func appendSide(_ bytes: [UInt8]) throws(QuakeError) -> (String, Int) {
        let path = scratch + "/direct.side"
        let (fd, at) = try state.locked { (s) throws(QuakeError) -> (Int32, Int) in
            if s.sideFD < 0 { s.sideFD = try FileIO.open(path, O_CREAT | O_TRUNC | O_WRONLY) }
            defer { s.sideSize += bytes.count }
            return (s.sideFD, s.sideSize)
        }
        try FileIO.pwriteAll(fd, bytes, at: at, path: path)
        return (path, at)
    }
}

/// A partition's rows on their way to the writer thread, handed over once.
private final class Handoff: Sendable {
    private let rows: Mutex<RowBatch?>
    init(_ rows: consuming RowBatch) { self.rows = Mutex(rows) }
    /// The rows, leaving nothing behind: the taker holds the only reference.
    func take() -> RowBatch {
        rows.locked { r in
            defer { r = nil }
            return r ?? RowBatch()
        }
    }
}
