import QuakeFormat

/// Sorted, disjoint half-open spans of event time (epoch ms): where the id index places the
/// events a point read asks for (a minute each, or a whole partition for an entry of unknown
/// minute). ``Filter/timeWindows(_:)`` keeps rows whose time lies in one of them.
package struct TimeWindows: Sendable, Equatable {
    /// The spans, sorted by start, none empty, none touching the next.
    package let spans: [Range<Int64>]

    /// The union of `ranges` (in any order; empty ones dropped), merged into disjoint spans.
    package init(_ ranges: [Range<Int64>]) {
        let sorted = ranges.filter { !$0.isEmpty }.sorted { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int64>] = []
        merged.reserveCapacity(sorted.count)
        for range in sorted {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<Swift.max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        spans = merged
    }

    /// The least start and the greatest end; nil when there are no spans.
    package var bounds: Range<Int64>? {
        guard let first = spans.first, let last = spans.last else { return nil }
        return first.lowerBound..<last.upperBound
    }

    /// The index of the first span that ends after `time`.
    /// - Complexity: O(log spans).
    private func firstEndingAfter(_ time: Int64) -> Int {
        var low = 0
        var high = spans.count
        while low < high {
            let middle = (low + high) / 2
            if spans[middle].upperBound <= time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Whether a span holds `time`.
    package func contains(_ time: Int64) -> Bool {
        let index = firstEndingAfter(time)
        return index < spans.count && spans[index].lowerBound <= time
    }

    /// The spans that meet `least...greatest`, clipped to it.
    /// - Complexity: O(log spans + the spans met).
    package func spans(meeting least: Int64, _ greatest: Int64) -> [Range<Int64>] {
        guard least <= greatest else { return [] }
        var out: [Range<Int64>] = []
        var index = firstEndingAfter(least)
        while index < spans.count, spans[index].lowerBound <= greatest {
            let span = spans[index]
            let upper = greatest == Int64.max ? span.upperBound : Swift.min(span.upperBound, greatest + 1)
            out.append(Swift.max(span.lowerBound, least)..<upper)
            index += 1
        }
        return out
    }

    /// Whether a span meets `least...greatest`.
    package func meets(_ least: Int64, _ greatest: Int64) -> Bool {
        guard least <= greatest else { return false }
        let index = firstEndingAfter(least)
        return index < spans.count && spans[index].lowerBound <= greatest
    }

    /// Whether one span holds all of `least...greatest`.
    package func covers(_ least: Int64, _ greatest: Int64) -> Bool {
        guard least <= greatest else { return false }
        let index = firstEndingAfter(least)
        return index < spans.count && spans[index].lowerBound <= least && greatest < spans[index].upperBound
    }
}
