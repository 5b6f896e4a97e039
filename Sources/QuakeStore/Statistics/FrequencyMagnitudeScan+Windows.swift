import QuakeFormat

extension FrequencyMagnitudeScan {
    /// The matching events of one partition in time order: each one's time, and its bin
    /// (``RowBatch/null`` without a magnitude).
    struct EventSequence {
        var times: [Int64] = []
        var bins: [Int64] = []
    }

    /// Tallies of windows of `size` consecutive matching events with a magnitude, in time
    /// order, each with the time of its first event. Partitions are read a run at a time on all
    /// cores, so memory is bounded by a run's events, then cut into windows in order.
    func windows(of size: Int) throws -> [(firstTime: Int64, tally: BinTally)] {
        var stats = QueryStats()
        let partitions = try executor.partitions(for: filter, stats: &stats)
        var assembler = WindowAssembler(size: size)
        let run = max(16, workerCount * 8)
        for runStart in stride(from: 0, to: partitions.count, by: run) {
            let runPartitions = Array(partitions[runStart..<min(partitions.count, runStart + run)])
            let sequences = try parallelMap(runPartitions) { partition in
                try self.sequence(partition)
            }
            for sequence in sequences { try assembler.add(sequence) }
        }
        return assembler.finished()
    }

    /// The matching events of partition `partition`, in its (time, id) order.
    private func sequence(_ partition: Int) throws -> EventSequence {
        var stats = QueryStats()
        var sequence = EventSequence()
        for unit in try executor.units(partition, filter, merge: true, stats: &stats) {
            let (data, selection) = try executor.scan(unit, filter, &stats)
            if selection.isEmpty { continue }
            let magnitudes = try data.ints(.mag)
            let times = try data.ints(.time)
            sequence.times.reserveCapacity(sequence.times.count + selection.count)
            sequence.bins.reserveCapacity(sequence.bins.count + selection.count)
            selection.forEach { row in
                sequence.times.append(times[row])
                let encoded = magnitudes[row]
                sequence.bins.append(encoded == RowBatch.null ? RowBatch.null : binning.index(encoded))
            }
        }
        return sequence
    }
}

/// Cuts events, in time order, into windows of a fixed number of events with a magnitude.
/// An event without one counts in the window it falls in; the last window may be short.
struct WindowAssembler {
    let size: Int
    private(set) var windows: [(firstTime: Int64, tally: BinTally)] = []
    private var current = BinTally()
    private var withMagnitude = 0
    private var firstTime: Int64?

    init(size: Int) {
        self.size = size
    }

    mutating func add(_ sequence: FrequencyMagnitudeScan.EventSequence) throws {
        for (time, bin) in zip(sequence.times, sequence.bins) {
            if firstTime == nil { firstTime = time }
            if bin == RowBatch.null {
                current.withoutMagnitude += 1
                continue
            }
            try current.add(bin)
            withMagnitude += 1
            if withMagnitude == size { close() }
        }
    }

    private mutating func close() {
        windows.append((firstTime ?? 0, current))
        current = BinTally()
        withMagnitude = 0
        firstTime = nil
    }

    /// Every window, the last one closed even when short.
    mutating func finished() -> [(firstTime: Int64, tally: BinTally)] {
        if firstTime != nil { close() }
        return windows
    }
}
