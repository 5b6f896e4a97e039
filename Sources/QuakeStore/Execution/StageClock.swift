import Foundation

/// Times the stages of a query for `explain`: each ``end(_:into:)`` records the time since the
/// last one (or since the clock was made).
struct StageClock {
    private var last = DispatchTime.now().uptimeNanoseconds

    mutating func end(_ stage: String, into stats: inout QueryStats) {
        let now = DispatchTime.now().uptimeNanoseconds
        stats.stages.append((stage, Double(now - last) / 1e6))
        last = now
    }
}
