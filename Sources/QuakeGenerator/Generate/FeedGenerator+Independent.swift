import Foundation
import QuakeFormat

extension FeedGenerator {
    /// The month's events with every column but `time` shuffled on its own, so that no column
    /// predicts another: each keeps its values (its nulls, its distinct texts) but they land on other
    /// rows. `updated` is drawn afresh as `time` plus a delay spread evenly on a log scale from a
    /// minute to about five years, as USGS revises events long after they happen, so that it is
    /// no longer nearly `time`.
    ///
    /// A store built from such an archive cannot lean on the correlations of the plain archive (a
    /// network's places and coordinates, an id's network, `updated` a little after `time`).
    ///
    /// - Complexity: O(n) in the month's events, one pass per column.
    static func independent(_ b: RowBatch, rng: inout SplitMix64) -> RowBatch {
        var out = RowBatch()
        out.count = b.count
        out.present = b.present
        out.seq = b.seq
        for c in Column.allCases {
            if c == .time {
                out.ints[c.rawValue] = b.ints[c.rawValue]
                continue
            }
            let order = Array(0..<b.count).shuffled(using: &rng)
            if RowBatch.isInt(c) {
                let src = b.ints[c.rawValue]
                out.ints[c.rawValue] = order.map { src[$0] }
            } else {
                out.text[c.rawValue] = b.text[c.rawValue].gather(order)
            }
        }
        let times = b.ints[Column.time.rawValue]
        out.ints[Column.updated.rawValue] = times.map { t in
            let minutes = pow(10, rng.unit() * 6.42)  // 1 minute to 10^6.42 minutes, about 5 years
            return t + Int64(minutes * 60_000)
        }
        return out
    }
}
