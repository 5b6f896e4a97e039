/// What a manifest says about the load history: which generations have a transaction file
/// under `history/`, and from where the history is complete.
///
/// History is complete for generations after ``baseGeneration`` and for commits after
/// ``baseTime``: every load committed since then has its transaction. Commits that are not
/// loads (repair, migrate, prune) have none, so the ranges have gaps.
package struct HistoryRetention: Sendable, Equatable {
    /// Complete after this generation (0 for a store made with history).
    package var baseGeneration = 0
    /// Complete for commits after this time, epoch ms: `Int64.min` from the start, `Int64.max`
    /// while unknown (a store from before history, until its first load with history).
    package var baseTime = Int64.min
    /// Inclusive ranges of generations with a transaction, ascending and disjoint, as pairs of
    /// bounds: plain integers, since every one-shot query reads them from the manifest, and an
    /// array of `ClosedRange` costs a process a scan of every protocol conformance at first use.
    private var bounds: [Int] = []

    /// Inclusive ranges of generations with a transaction, ascending and disjoint.
    package var ranges: [ClosedRange<Int>] {
        get { stride(from: 0, to: bounds.count, by: 2).map { bounds[$0]...bounds[$0 + 1] } }
        set { bounds = newValue.flatMap { [$0.lowerBound, $0.upperBound] } }
    }

    package static let unknownTime = Int64.max
    /// More transactions than any store keeps (a load a minute for 30 years); a manifest
    /// listing more is damaged.
    package static let maxTransactions = 1 << 24

    package init() {}

    /// History of a store that had none: complete only after `generation`, from a time the
    /// next load sets.
    package init(startingAt generation: Int) {
        baseGeneration = generation
        baseTime = HistoryRetention.unknownTime
    }

    /// Every generation with a transaction, oldest first.
    package var generations: [Int] { ranges.flatMap { Array($0) } }

    package var count: Int {
        var total = 0, boundIndex = 0
        while boundIndex + 1 < bounds.count {
            total += bounds[boundIndex + 1] - bounds[boundIndex] + 1
            boundIndex += 2
        }
        return total
    }

    /// The newest generation with a transaction, or the base.
    package var latest: Int { bounds.last ?? baseGeneration }

    package mutating func append(_ g: Int) {
        if let last = bounds.last, last == g - 1 {
            bounds[bounds.count - 1] = g
        } else {
            bounds += [g, g]
        }
    }

    /// Drops transactions older than `g`; history is then complete only after `g - 1`.
    package mutating func prune(before g: Int, newestPrunedTime: Int64?) {
        ranges = ranges.compactMap { r in
            r.upperBound < g ? nil : max(r.lowerBound, g)...r.upperBound
        }
        baseGeneration = max(baseGeneration, g - 1)
        if let prunedTime = newestPrunedTime { baseTime = max(baseTime, prunedTime) }
    }

    package func encode(into w: inout ByteWriter) {
        w.u64(UInt64(baseGeneration))
        w.i64(baseTime)
        w.u32(UInt32(bounds.count / 2))
        for b in bounds { w.u64(UInt64(b)) }
    }

    package static func decode(_ r: inout ByteReader, generation: Int) throws(QuakeError) -> HistoryRetention {
        var retention = HistoryRetention()
        let base = try r.u64()
        guard base <= UInt64(generation) else {
            throw .corrupt("history base \(base) is past generation \(generation)")
        }
        retention.baseGeneration = Int(base)
        retention.baseTime = try r.i64()
        let count = Int(try r.u32())
        guard count <= r.remaining / 16 else { throw .corrupt("lists \(count) history ranges") }
        var floor = retention.baseGeneration
        for _ in 0..<count {
            let lo = try r.u64(), hi = try r.u64()
            guard lo > UInt64(floor), lo <= hi, hi <= UInt64(generation) else {
                throw .corrupt("history range \(lo)...\(hi) is out of order or past generation \(generation)")
            }
            retention.bounds += [Int(lo), Int(hi)]
            floor = Int(hi) + 1
        }
        guard retention.count <= maxTransactions else {
            throw .corrupt("history lists \(retention.count) transactions")
        }
        return retention
    }
}
