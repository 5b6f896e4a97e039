import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// Gathers, while a load writes partitions, the rows the next magnitude projection
/// (``TopRows``) can need: of each partition file written, the rows whose magnitude is at least
/// a floor that rises as rows arrive, so it holds about twice the projection's capacity
/// whatever the load's size.
///
/// The floor never passes the projection's final threshold: a value is raised to only when more
/// than `capacity` gathered rows are at least as strong, and the final threshold keeps at most
/// `capacity` rows of a superset. Called from the writer threads.
package final class TopRowsCollector: Sendable {
    let capacity: Int
    private struct State {
        var floor: Double
        /// Per partition file written, its rows at or above the floor when it was offered.
        var pieces: [String: RowBatch] = [:]
        var held = 0

        /// Raises the floor to the threshold of the rows held, and drops the rows under it.
        mutating func raise(capacity: Int) {
            var counts: [Double: Int] = [:]
            for piece in pieces.values {
                for (mag, count) in TopRowsCollector.counts(piece.ints[Column.mag.rawValue]) {
                    counts[mag, default: 0] += count
                }
            }
            guard let threshold = TopRows.threshold(counts, floor: floor, capacity: capacity),
                  threshold > floor else { return }
            floor = threshold
            held = 0
            for (file, piece) in pieces {
                let kept = piece.gather(TopRowsCollector.rows(of: piece, atLeast: threshold))
                held += kept.count
                pieces[file] = kept
            }
        }
    }
    private let state: Mutex<State>

    /// A collector that keeps rows of magnitude `floor` and up (`-infinity`: any magnitude).
    init(floor: Double, capacity: Int) {
        state = Mutex(State(floor: floor))
        self.capacity = capacity
    }

    /// Keeps the rows of `batch`, the rows just written as partition file `file`, that can
    /// belong to the projection; a file offered again (rewritten under its name) replaces them.
    /// - Complexity: O(rows of `batch`), plus O(rows held) when the floor rises.
    func offer(_ batch: RowBatch, file: String) {
        var floor = state.locked { $0.floor }
        var keep = Self.rows(of: batch, atLeast: floor)
        if keep.count > capacity {
            // the batch alone holds more: its own threshold is a floor for the whole store
            let mags = batch.ints[Column.mag.rawValue]
            if let threshold = TopRows.threshold(Self.counts(keep.map { mags[$0] }), floor: floor, capacity: capacity),
               threshold > floor {
                floor = threshold
                keep.removeAll { ScaledDecimal.double(mags[$0]) < threshold }
            }
        }
        let piece = batch.gather(keep)
        let capacity = capacity
        state.locked { [floor] shared in
            shared.floor = Swift.max(shared.floor, floor)
            shared.held += piece.count - (shared.pieces[file]?.count ?? 0)
            shared.pieces[file] = piece
            if shared.held > 2 * capacity { shared.raise(capacity: capacity) }
        }
    }

    /// The floor and the rows held per partition file, each at or above the floor.
    func take() -> (floor: Double, pieces: [String: RowBatch]) {
        state.locked { shared in
            for (file, piece) in shared.pieces {
                shared.pieces[file] = piece.gather(Self.rows(of: piece, atLeast: shared.floor))
            }
            return (shared.floor, shared.pieces)
        }
    }

    /// Rows of `batch` with a magnitude at least `f`, ascending.
    static func rows(of batch: RowBatch, atLeast f: Double) -> [Int] {
        let mags = batch.ints[Column.mag.rawValue]
        var out: [Int] = []
        for i in 0..<min(batch.count, mags.count) where mags[i] != RowBatch.null && ScaledDecimal.double(mags[i]) >= f {
            out.append(i)
        }
        return out
    }

    /// Rows per magnitude of `mags`, nulls left out (`2.5` and `2.50` are one magnitude).
    ///
    /// The stored values are radix-sorted, and each run of one value is converted and counted
    /// once: a dictionary update per row cost a one-event commit 2 % (the old projection's
    /// candidates are counted on every commit).
    /// - Complexity: O(n) radix passes, one dictionary update per distinct stored value.
    static func counts(_ mags: [Int64]) -> [Double: Int] {
        // the sign bit flipped: the unsigned order is the signed order, so equal values sit together
        var keys = mags.compactMap { $0 == RowBatch.null ? nil : UInt64(bitPattern: $0) ^ (1 << 63) }
        RadixSort.sort(&keys, bits: 64)
        var out: [Double: Int] = [:]
        var start = 0
        while start < keys.count {
            var end = start + 1
            while end < keys.count && keys[end] == keys[start] { end += 1 }
            out[ScaledDecimal.double(Int64(bitPattern: keys[start] ^ (1 << 63))) + 0.0, default: 0] += end - start
            start = end
        }
        return out
    }
}
