/// The precision an event time (epoch milliseconds) was written with, so that a version of the
/// same event with the same `updated` never replaces a precise time with a coarse copy of it: a
/// spreadsheet that saved `14:20:50.230` as `14:20` loses to the feed it was made from.
package enum TimePrecision {
    /// True when `coarse` is `precise` written to the minute or to the second (truncated, or rounded
    /// within the same UTC day, so the event stays in its partition) and `precise` has more digits.
    @inline(__always)
    package static func coarsens(_ coarse: Int64, _ precise: Int64) -> Bool {
        guard coarse != precise, coarse != .min, precise != .min else { return false }
        for unit: Int64 in [60_000, 1_000] where coarse % unit == 0 && precise % unit != 0 {
            let down = floorDiv(precise, unit) * unit
            if coarse == down { return true }
            if coarse == down + unit && floorDiv(coarse, 86_400_000) == floorDiv(precise, 86_400_000) { return true }
        }
        return false
    }

    @inline(__always)
    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }
}
