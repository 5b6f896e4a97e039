import Foundation
import QuakeFormat

/// Parses one large plain CSV file on several threads: the file is cut after a newline near
/// each `1/n` mark, and every piece is parsed by its own reader straight into row batches.
///
/// A cut is right when the one-thread parse has a record boundary there. Each piece but the
/// last checks that for the cut after it: its reader, which started at a true boundary, must
/// end with a complete record ending in a newline outside quotes. If any piece fails the check
/// (a quoted field holding a newline straddles a cut), ``run`` reports it and the loader
/// parses the file again on one thread, so the result is always exactly the one-thread parse.
/// Rejects are held per piece and released in file order, with their real line numbers, only
/// when every cut was right.
package final class SplitParse: @unchecked Sendable {
    /// Smallest file worth splitting.
    package static let minimumBytes = 32 << 20

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
    /// Written by the workers under `lock` once ``start(_:batchRows:)`` runs: read ``pieceCount``
    /// (or these, after every piece has ended).
    package private(set) var pieces: [Piece]
    /// How many pieces there are (fixed when planned).
    package let pieceCount: Int
    private let lock = NSLock()
    private var bytes = 0

    /// Plans the pieces, or nil when the file is not worth or not safe to split.
    package init?(path: String, reader: FeedReader, seqBase: Int64, workers: Int, minimumBytes: Int = SplitParse.minimumBytes) {
        guard workers > 1, reader.format == .csv, reader.input.compression == "none", path != "-",
              let size = reader.input.fileSize, size >= minimumBytes,
              let csv = reader.csvReader, let start = csv.headerBytes else { return nil }
        guard let f = try? MappedFile(path: path), f.bytes.count == size else { return nil }
        var cuts = [start]
        for k in 1..<workers {
            var i = start + (size - start) * k / workers
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
    }

    /// Parses every piece on its own thread, handing batches to `pipe`; `.end` once per piece.
    package func start(_ pipe: BatchPipe, batchRows: Int) {
        // read before any worker starts: the workers write their pieces (under the lock)
        let ranges = pieces.map(\.range)
        for (k, range) in ranges.enumerated() {
            Thread.detachNewThread { [self] in
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
                        if !pipe.put(.batch(b, total, piece: k)) { return }
                    }
                    lock.lock()
                    pieces[k].lines = reader.linesRead
                    pieces[k].endedOnRecordBoundary = reader.endedOnRecordBoundary
                    pieces[k].rejects = rejects
                    pieces[k].rules = reader.rules
                    lock.unlock()
                    pipe.put(.end)
                } catch {
                    pipe.put(.failed(error))
                }
            }
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
