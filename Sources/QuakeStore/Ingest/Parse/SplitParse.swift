import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// Parses one large plain CSV or GeoJSON file on several threads and hands its batches over
/// in file order: the file is cut near every ``chunkBytes`` (at least one piece per worker),
/// after a newline (CSV) or before a feature that follows a comma (GeoJSON); worker `w` parses
/// pieces `w`, `w + workers`, ... each with its own reader straight into row batches, and
/// ``take()`` returns the batches piece by piece. So a time-ordered feed stays time-ordered for
/// the loader, which then holds one partition open at a time.
///
/// A cut is right when the one-thread parse has a record boundary there. Each piece but the
/// last checks that for the cut after it: its reader, which started at a true boundary, must
/// end with a complete record ending in a newline outside quotes (CSV), or after the comma
/// between two features (GeoJSON). If any piece fails the check (a quoted field holding a
/// newline straddles a cut, or a cut fell inside a string), ``cutsWereRight`` says so and the
/// loader parses the file again on one thread, so the result is always exactly the one-thread
/// parse. A GeoJSON piece that fails (malformed structure), or whose integer times settle on
/// another unit than the file's first, sends the file to the one-thread parse the same way, so
/// its error and its warnings are the one-thread parse's too. Rejects are held per piece and
/// released in file order, with their real line (or feature) numbers, only when every cut was
/// right.
///
/// Memory: each worker keeps at most ``queuedBatches`` batches waiting.
package final class SplitParse: Sendable {
    /// Smallest file worth splitting.
    package static let minimumBytes = 32 << 20
    /// Bytes a piece holds, about: each piece ends in a partial batch.
    package static let chunkBytes = 8 << 20
    /// Batches a worker may have parsed ahead of the loader.
    package static let queuedBatches = 2

    package struct Piece: Sendable {
        package var range: Range<Int>
        /// Newlines the piece held, and its rejects (lines relative to the piece).
        package var lines = 0
        package var rejects: [Reject] = []
        package var endedOnRecordBoundary = true
        package var rules = FieldRules()
        /// GeoJSON: the unit the piece's integer times settled on, the warning that came with it,
        /// and whether the piece failed (the file is then read on one thread).
        package var timeUnit: TimeUnit?
        package var warnings: [String] = []
        package var failed = false
    }

    /// How a piece is read.
    private enum Kind: Sendable {
        case csv(CSVFeedReader.Header)
        case geojson(timeUnit: TimeUnit?, strict: Bool, rules: FieldRules)
    }

    package let path: String
    private let kind: Kind
    package let seqBase: Int64
    /// Written by the workers (under the lock) once ``start(batchRows:)`` runs: read
    /// ``pieceCount`` (or these, after every piece has ended).
    package var pieces: [Piece] { state.locked { $0.pieces } }
    /// How many pieces there are (fixed when planned).
    package let pieceCount: Int
    /// Threads parsing, and the batches each hands over, in the order of its pieces.
    package let workers: Int
    private let channels: [BatchPipe]
    /// The piece ``take()`` reads next (the consumer's only: an atomic only to be shareable).
    private let reading = Atomic(0)
    /// The pieces, and the raw bytes the workers have read together.
    private struct State {
        var pieces: [Piece]
        var bytes = 0
    }
    private let state: Mutex<State>

    /// Plans the pieces, or nil when the file is not worth or not safe to split.
    package init?(path: String, reader: FeedReader, seqBase: Int64, workers: Int,
                  minimumBytes: Int = SplitParse.minimumBytes, chunkBytes: Int = SplitParse.chunkBytes) {
        guard workers > 1, reader.input.compression == "none", path != "-",
              let size = reader.input.fileSize, size >= minimumBytes else { return nil }
        let start: Int
        switch reader.format {
        case .csv:
            guard let csv = reader.csvReader, let headerBytes = csv.headerBytes else { return nil }
            start = headerBytes
            kind = .csv(csv.header)
        case .geojson:
            start = 0
            kind = .geojson(timeUnit: reader.timeUnit, strict: reader.strict, rules: reader.rulesGiven)
        }
        guard let mapped = try? MappedFile(path: path), mapped.bytes.count == size else { return nil }
        let wanted = max(workers, (size - start + max(1, chunkBytes) - 1) / max(1, chunkBytes))
        var cuts = [start]
        // SAFETY: `mapped` keeps the mapping alive to the end of init; every cut searched for starts
        // inside it (0 < aim < size), and the searches read only below mapped.bytes.count.
        for k in 1..<wanted {
            let aim = start + (size - start) * k / wanted
            guard aim > cuts[cuts.count - 1] else { continue }
            let cut = reader.format == .csv ? SplitParse.lineStart(mapped.bytes, from: aim)
                : SplitParse.featureStart(mapped.bytes, from: aim)
            if let cut, cut < size, cut > cuts[cuts.count - 1] { cuts.append(cut) }
        }
        cuts.append(size)
        guard cuts.count > 2 else { return nil }
        self.path = path
        self.seqBase = seqBase
        let pieces = (0..<(cuts.count - 1)).map { Piece(range: cuts[$0]..<cuts[$0 + 1]) }
        state = Mutex(State(pieces: pieces))
        pieceCount = pieces.count
        self.workers = min(workers, pieceCount)
        channels = (0..<min(workers, pieceCount)).map { _ in BatchPipe(capacity: SplitParse.queuedBatches) }
    }

    /// The first offset at or after `i` that follows a newline.
    private static func lineStart(_ b: UnsafeRawBufferPointer, from i: Int) -> Int? {
        var at = i
        // SAFETY: 0 < at < b.count on entry; the loop stops at the end of the mapping.
        assert(at > 0 && at <= b.count)
        while at < b.count && b[at - 1] != UInt8(ascii: "\n") { at += 1 }
        return at < b.count ? at : nil
    }

    /// The first offset at or after `i` (within a few MiB) where `{"type":"Feature"` (with any
    /// whitespace between its tokens, as pretty-printed feeds have it) follows a comma and
    /// optional whitespace: likely a feature of the `features` array. The piece before it checks
    /// that it is.
    private static func featureStart(_ b: UnsafeRawBufferPointer, from i: Int) -> Int? {
        let limit = min(b.count, i + (4 << 20))
        // SAFETY: every index read is checked against b.count (or limit <= b.count) first.
        func skipSpace(_ k: Int) -> Int {
            var at = k
            while at < b.count && JSONCursor.isSpace(b[at]) { at += 1 }
            return at
        }
        func literal(_ k: Int, _ text: StaticString) -> Int? {
            let length = text.utf8CodeUnitCount
            guard k + length <= b.count else { return nil }
            for m in 0..<length where b[k + m] != text.utf8Start[m] { return nil }
            return k + length
        }
        var at = i
        while at < limit {
            if b[at] == UInt8(ascii: "{"), let afterType = literal(skipSpace(at + 1), #""type""#),
               let afterColon = literal(skipSpace(afterType), ":"),
               literal(skipSpace(afterColon), #""Feature""#) != nil {
                var before = at - 1
                while before > 0 && JSONCursor.isSpace(b[before]) { before -= 1 }
                if before > 0 && b[before] == UInt8(ascii: ",") { return at }
            }
            at += 1
        }
        return nil
    }

    /// Starts the workers; read their batches with ``take()``, and ``close()`` when done.
    package func start(batchRows: Int) {
        // read before any worker starts: the workers write their pieces (under the lock)
        let ranges = pieces.map(\.range)
        for w in 0..<workers {
            let pipe = channels[w]
            Thread.detachNewThread { [self] in
                // one set of row buffers per worker, handed from piece to piece
                var builder: RowBuilder?
                for k in stride(from: w, to: ranges.count, by: workers) {
                    let more = parse(piece: k, range: ranges[k], into: pipe, batchRows: batchRows, builder: &builder)
                    if !more { return }
                }
            }
        }
    }

    /// The next item in file order: a piece's batches, then its `.end`; `.end` once per piece.
    package func take() -> BatchItem {
        let piece = reading.load(ordering: .relaxed)
        let item = channels[piece % workers].take() ?? .end
        if case .end = item { reading.store(piece + 1, ordering: .relaxed) }
        return item
    }

    /// The loader is done (or failed): stops the workers.
    package func close() {
        for channel in channels {
            channel.close()
        }
    }

    /// Parses piece `k` into `pipe`; false when the piece failed or the loader has gone.
    private func parse(piece k: Int, range: Range<Int>, into pipe: BatchPipe, batchRows: Int,
                       builder: inout RowBuilder?) -> Bool {
        var rejects: [Reject] = []
        var warnings: [String] = []
        do throws(QuakeError) {
            let input = try FeedInput(path: path, range: range)
            let base = seqBase + Int64(range.lowerBound)
            var piece = Piece(range: range)
            switch kind {
            case .csv(let header):
                let reader = CSVFeedReader(input: input, header: header, seqBase: base, builder: builder.take()) {
                    rejects.append($0)
                }
                defer { builder = reader.takeBuilder() }
                reader.atFileEnd = k == pieceCount - 1
                if !(try forward(reader.next(maxRows:), input, pipe, batchRows)) { return false }
                piece.lines = reader.linesRead
                piece.endedOnRecordBoundary = reader.endedOnRecordBoundary
                piece.rules = reader.rules
            case .geojson(let unit, let strict, let rules):
                let reader = GeoJSONFeedReader(piece: input, offset: range.lowerBound, seqBase: base, timeUnit: unit,
                                               strict: strict, rules: rules, endsAtCut: k < pieceCount - 1,
                                               builder: builder.take(), onWarning: { warnings.append($0) },
                                               onReject: { rejects.append($0) })
                defer { builder = reader.takeBuilder() }
                do throws(QuakeError) {
                    if !(try forward(reader.next(maxRows:), input, pipe, batchRows)) { return false }
                } catch {
                    // the one-thread parse will raise it, with its own numbers
                    piece.failed = true
                }
                piece.lines = reader.featuresRead
                piece.endedOnRecordBoundary = reader.endedOnBoundary
                piece.rules = reader.rules
                piece.timeUnit = reader.timeUnit
            }
            piece.rejects = rejects
            piece.warnings = warnings
            state.locked { [piece] in $0.pieces[k] = piece }
            return pipe.put(.end)
        } catch {
            pipe.put(.failed(error))
            return false
        }
    }

    /// Hands the batches `next` reads to `pipe`; false when the loader has gone.
    private func forward(_ next: (Int) throws(QuakeError) -> RowBatch?, _ input: FeedInput, _ pipe: BatchPipe,
                         _ batchRows: Int) throws(QuakeError) -> Bool {
        var seen = 0
        while let batch = try next(batchRows) {
            let total = add(input.bytesRead - seen)
            seen = input.bytesRead
            if !pipe.put(.batch(batch, total)) { return false }
        }
        return true
    }

    private func add(_ n: Int) -> Int {
        state.locked { s in
            s.bytes += n
            return s.bytes
        }
    }

    /// True when every cut fell on a record boundary of the one-thread parse, and (GeoJSON)
    /// every piece read to its end and settled on the file's time unit, if any.
    package var cutsWereRight: Bool {
        let pieces = self.pieces
        let units = pieces.compactMap(\.timeUnit)
        return pieces.dropLast().allSatisfy(\.endedOnRecordBoundary) && !pieces.contains(where: \.failed)
            && units.allSatisfy { $0 == units.first }
    }

    /// True for a CSV file whose last row had no newline: the last piece did not end on one.
    package var endedWithoutNewline: Bool {
        guard case .csv = kind, let last = pieces.last else { return false }
        return !last.endedOnRecordBoundary
    }

    /// The file's warnings: those of the first piece whose times settled the unit (GeoJSON).
    package var warnings: [String] {
        pieces.first { $0.timeUnit != nil }?.warnings ?? []
    }

    /// What the text rules met, over every piece.
    package var rulesMet: FieldRules {
        var out = FieldRules()
        for p in pieces { out.add(p.rules) }
        return out
    }

    /// Every piece's rejects in file order, with file line numbers (the header is line 1).
    package var rejects: [Reject] {
        let pieces = self.pieces
        var out: [Reject] = []
        // CSV lines count from the header's 1; GeoJSON features from 0
        var before: Int
        switch kind {
        case .csv: before = 1
        case .geojson: before = 0
        }
        for p in pieces {
            for r in p.rejects {
                out.append(Reject(file: r.file, line: r.line + before, isFeature: r.isFeature, reason: r.reason))
            }
            before += p.lines
        }
        return out
    }
}
