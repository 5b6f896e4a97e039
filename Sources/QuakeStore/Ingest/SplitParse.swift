import Foundation
import QuakeFormat

/// Parses one large plain CSV file on several threads and hands its batches over in file
/// order: the file is cut after a newline near every ``chunkBytes`` (at least one piece per
/// worker), worker `w` parses pieces `w`, `w + workers`, ... each with its own reader straight
/// into row batches, and ``take()`` returns the batches piece by piece. So a time-ordered feed
/// stays time-ordered for the loader, which then holds one partition open at a time.
///
/// A cut is right when the one-thread parse has a record boundary there. Each piece but the
/// last checks that for the cut after it: its reader, which started at a true boundary, must
/// end with a complete record ending in a newline outside quotes. If any piece fails the check
/// (a quoted field holding a newline straddles a cut), ``cutsWereRight`` says so and the loader
/// parses the file again on one thread, so the result is always exactly the one-thread parse.
/// Rejects are held per piece and released in file order, with their real line numbers, only
/// when every cut was right.
///
/// Memory: each worker keeps at most ``queuedBatches`` batches waiting.
package final class SplitParse: @unchecked Sendable {
    /// Smallest file worth splitting.
    package static let minimumBytes = 32 << 20
    /// Bytes a piece holds, about: each piece ends in a partial batch.
    package static let chunkBytes = 8 << 20
    /// Batches a worker may have parsed ahead of the loader.
    package static let queuedBatches = 2

    package struct Piece {
        package var range: Range<Int>
        /// Newlines the piece held, and its rejects (lines relative to the piece).
        package var lines = 0
        package var rejects: [Reject] = []
        package var endedOnRecordBoundary = true
        package var rules = FieldRules()
    }

    package let path: String
    package let header: CSVFeedReader.Header
    package let seqBase: Int64
    /// Written by the workers under `lock` once ``start(batchRows:)`` runs: read ``pieceCount``
    /// (or these, after every piece has ended).
    package private(set) var pieces: [Piece]
    /// How many pieces there are (fixed when planned).
    package let pieceCount: Int
    /// Threads parsing, and the batches each hands over, in the order of its pieces.
    package let workers: Int
    private let channels: [BatchPipe]
    /// The piece ``take()`` reads next (the consumer's only).
    private var reading = 0
    private let lock = NSLock()
    private var bytes = 0

    /// Plans the pieces, or nil when the file is not worth or not safe to split.
    package init?(path: String, reader: FeedReader, seqBase: Int64, workers: Int, minimumBytes: Int = SplitParse.minimumBytes,
                  chunkBytes: Int = SplitParse.chunkBytes) {
        guard workers > 1, reader.format == .csv, reader.input.compression == "none", path != "-",
              let size = reader.input.fileSize, size >= minimumBytes,
              let csv = reader.csvReader, let start = csv.headerBytes else { return nil }
        guard let f = try? MappedFile(path: path), f.bytes.count == size else { return nil }
        let wanted = max(workers, (size - start + max(1, chunkBytes) - 1) / max(1, chunkBytes))
        var cuts = [start]
        for k in 1..<wanted {
            var i = start + (size - start) * k / wanted
            guard i > cuts[cuts.count - 1] else { continue }
            // SAFETY: i < size = f.bytes.count; the loop stops at the end of the mapping.
            while i < size && f.bytes[i - 1] != UInt8(ascii: "\n") { i += 1 }
            if i < size && i > cuts[cuts.count - 1] { cuts.append(i) }
        }
        cuts.append(size)
        guard cuts.count > 2 else { return nil }
        self.path = path
        self.header = csv.header
        self.seqBase = seqBase
        pieces = (0..<(cuts.count - 1)).map { Piece(range: cuts[$0]..<cuts[$0 + 1]) }
        pieceCount = pieces.count
        self.workers = min(workers, pieceCount)
        channels = (0..<min(workers, pieceCount)).map { _ in BatchPipe(capacity: SplitParse.queuedBatches) }
    }

    /// Starts the workers; read their batches with ``take()``, and ``close()`` when done.
    package func start(batchRows: Int) {
        // read before any worker starts: the workers write their pieces (under the lock)
        let ranges = pieces.map(\.range)
        for w in 0..<workers {
            let pipe = channels[w]
            Thread.detachNewThread { [self] in
                for k in stride(from: w, to: ranges.count, by: workers) {
                    if !parse(piece: k, range: ranges[k], into: pipe, batchRows: batchRows) { return }
                }
            }
        }
    }

    /// The next item in file order: a piece's batches, then its `.end`; `.end` once per piece.
    package func take() -> BatchItem {
        let item = channels[reading % workers].take()
        if case .end = item { reading += 1 }
        return item
    }

    /// The loader is done (or failed): stops the workers.
    package func close() {
        for c in channels { c.close() }
    }

    /// Parses piece `k` into `pipe`; false when the piece failed or the loader has gone.
    private func parse(piece k: Int, range: Range<Int>, into pipe: BatchPipe, batchRows: Int) -> Bool {
        var rejects: [Reject] = []
        do throws(IngestError) {
            let input = try FeedInput(path: path, range: range)
            let reader = CSVFeedReader(input: input, header: header, seqBase: seqBase + Int64(range.lowerBound)) {
                rejects.append($0)
            }
            var seen = 0
            while let b = try reader.next(maxRows: batchRows) {
                let total = add(input.bytesRead - seen)
                seen = input.bytesRead
                if !pipe.put(.batch(b, total)) { return false }
            }
            lock.lock()
            pieces[k].lines = reader.linesRead
            pieces[k].endedOnRecordBoundary = reader.endedOnRecordBoundary
            pieces[k].rejects = rejects
            pieces[k].rules = reader.rules
            lock.unlock()
            return pipe.put(.end)
        } catch {
            pipe.put(.failed(error))
            return false
        }
    }

    private func add(_ n: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        bytes += n
        return bytes
    }

    /// True when every cut fell on a record boundary of the one-thread parse.
    package var cutsWereRight: Bool {
        lock.lock()
        defer { lock.unlock() }
        return pieces.dropLast().allSatisfy(\.endedOnRecordBoundary)
    }

    /// What the text rules met, over every piece.
    package var rulesMet: FieldRules {
        lock.lock()
        defer { lock.unlock() }
        var out = FieldRules()
        for p in pieces { out.add(p.rules) }
        return out
    }

    /// Every piece's rejects in file order, with file line numbers (the header is line 1).
    package var rejects: [Reject] {
        lock.lock()
        defer { lock.unlock() }
        var out: [Reject] = []
        var before = 1
        for p in pieces {
            for r in p.rejects { out.append(Reject(file: r.file, line: r.line + before, isFeature: false, reason: r.reason)) }
            before += p.lines
        }
        return out
    }
}
