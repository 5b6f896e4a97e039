import QuakeFormat

/// Counts of events per magnitude bin index, in one dense array from the lowest bin seen, and
/// the events without a magnitude. Adding to a bin inside the range touches one integer; the
/// array grows (rarely) when a bin falls outside it.
package struct BinTally: Sendable, Equatable {
    /// The bin index of `counts[0]`.
    package private(set) var lowest: Int64 = 0
    package private(set) var counts: [Int] = []
    package var withoutMagnitude = 0

    /// The widest span of bins a tally holds (a bin width too fine for the magnitudes).
    package static let maxBins = 4_000_000
    /// The farthest bin from 0 a tally holds (2^24): with bins at most
    /// ``MagnitudeBinning/widestBin`` wide, the estimate's sums cannot overflow.
    package static let maxIndex: Int64 = 1 << 24

    package init() {}

    /// The events with a magnitude.
    package var withMagnitude: Int { counts.reduce(0, +) }

    /// Adds `events` events to bin `index`.
    @inline(__always)
    package mutating func add(_ index: Int64, _ events: Int = 1) throws(QuakeError) {
        let offset = index &- lowest
        if !counts.isEmpty && offset >= 0 && offset < Int64(counts.count) {
            counts[Int(offset)] += events
            return
        }
        try grow(toHold: index)
        counts[Int(index - lowest)] += events
    }

    /// Widens the array so that it holds bin `index`.
    private mutating func grow(toHold index: Int64) throws(QuakeError) {
        guard index.magnitude <= UInt64(BinTally.maxIndex) else {
            throw QuakeError.argument("the bin width", "wide enough that every magnitude lies within "
                + "\(BinTally.maxIndex) bins of 0")
        }
        if counts.isEmpty {
            lowest = index
            counts = [0]
            return
        }
        let newLowest = Swift.min(lowest, index)
        let newHighest = Swift.max(lowest + Int64(counts.count) - 1, index)
        guard newHighest - newLowest < Int64(BinTally.maxBins) else {
            throw QuakeError.argument("the bin width", "wide enough that the magnitudes span at most "
                + "\(BinTally.maxBins) bins")
        }
        var widened = [Int](repeating: 0, count: Int(newHighest - newLowest + 1))
        let shift = Int(lowest - newLowest)
        for (offset, events) in counts.enumerated() { widened[shift + offset] = events }
        lowest = newLowest
        counts = widened
    }

    /// Adds every count of `other`.
    package mutating func merge(_ other: BinTally) throws(QuakeError) {
        withoutMagnitude += other.withoutMagnitude
        for (offset, events) in other.counts.enumerated() where events > 0 {
            try add(other.lowest + Int64(offset), events)
        }
    }

    /// The bins from the lowest to the highest that hold an event, as (index, count).
    package var occupied: [(index: Int64, count: Int)] {
        guard let first = counts.firstIndex(where: { $0 > 0 }),
              let last = counts.lastIndex(where: { $0 > 0 }) else { return [] }
        return (first...last).map { (lowest + Int64($0), counts[$0]) }
    }
}
