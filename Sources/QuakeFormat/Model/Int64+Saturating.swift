/// Conversions and sums that clamp instead of trapping, for values that come from input:
/// a bound of `9.3e18` or an offset of `Int.max` must give an answer or an error, never a trap.
extension Int64 {
    /// The largest magnitude a clamped time or scaled value takes: far beyond any real date
    /// (about 146 million years) yet with room to add a day or a millisecond without overflow.
    package static let saturationLimit: Int64 = 1 << 62

    /// `d` rounded toward zero and clamped to `±saturationLimit`; NaN gives 0.
    package init(saturating d: Double) {
        if d.isNaN {
            self = 0
            return
        }
        let lim = Double(Int64.saturationLimit)
        self = d >= lim ? Int64.saturationLimit : d <= -lim ? -Int64.saturationLimit : Int64(d)
    }
}

extension Int {
    /// `self + other`, clamped to `Int.max` / `Int.min`.
    package func saturatingAdd(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? Int.max : Int.min) : sum
    }

    /// `self * other`, clamped to `Int.max` / `Int.min`.
    package func saturatingMultiply(_ other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) != (other < 0) ? Int.min : Int.max) : product
    }
}
