import Foundation
import QuakeFormat

extension FrequencyMagnitude {
    /// The distribution of the events in `tally`, binned by `binning`, with Mc found by `mc`.
    package init(tally: BinTally, binning: MagnitudeBinning, mc: MagnitudeOfCompleteness) throws(QuakeError) {
        let occupied = tally.occupied
        let withMagnitude = occupied.reduce(0) { $0 + $1.count }
        var bins: [Bin] = []
        bins.reserveCapacity(occupied.count)
        var remaining = withMagnitude
        for (index, events) in occupied {
            bins.append(Bin(magnitude: binning.magnitude(index), count: events, cumulative: remaining))
            remaining -= events
        }
        self.init(count: withMagnitude + tally.withoutMagnitude, withoutMagnitude: tally.withoutMagnitude,
                  bin: binning.width.double, mc: nil, eventsAboveMc: 0, b: nil, bUncertainty: nil, a: nil,
                  bins: bins)
        guard !occupied.isEmpty else { return }
        let completeness = try Self.completeness(occupied, binning: binning, mc: mc)
        self.mc = completeness.double
        estimate(occupied, binning: binning, completeness: completeness)
    }

    /// Mc as an exact decimal: a fixed value, or the most populated bin (the lowest on a tie)
    /// plus the correction.
    static func completeness(_ occupied: [(index: Int64, count: Int)], binning: MagnitudeBinning,
                             mc: MagnitudeOfCompleteness) throws(QuakeError) -> DecimalValue {
        switch mc {
        case .fixed(let value):
            guard let fixed = DecimalValue(value) else {
                throw QuakeError.argument("Mc",
                                          "a number with at most \(DecimalValue.maxScale) decimals, not \(value)")
            }
            return fixed
        case .maximumCurvature(let correction):
            guard let shift = DecimalValue(correction) else {
                throw QuakeError.argument("the Mc correction",
                                          "a number with at most \(DecimalValue.maxScale) decimals, not \(correction)")
            }
            var peak = occupied[0]
            for bin in occupied where bin.count > peak.count { peak = bin }
            let scale = Swift.max(binning.width.scale, shift.scale)
            let units = binning.centreUnits(peak.index, atScale: scale) + shift.units(atScale: scale)
            return DecimalValue(units: units, scale: scale)
        }
    }

    /// Sets the events above Mc and, when there are at least ``minimumEvents``, b, σ and a.
    private mutating func estimate(_ occupied: [(index: Int64, count: Int)], binning: MagnitudeBinning,
                                   completeness: DecimalValue) {
        let scale = Swift.max(binning.width.scale, completeness.scale)
        let mcUnits = completeness.units(atScale: scale)
        // sums over bin indices, exact: n, Σk, Σk²
        var events = 0
        var indexSum = Int128(0)
        var squareSum = Int128(0)
        for (index, count) in occupied where binning.centreUnits(index, atScale: scale) >= mcUnits {
            events += count
            indexSum += Int128(index) * Int128(count)
            squareSum += Int128(index) * Int128(index) * Int128(count)
        }
        eventsAboveMc = events
        guard events >= FrequencyMagnitude.minimumEvents else { return }
        let width = binning.width.double
        let eventCount = Double(events)
        // mean(M) − (Mc − Δ/2) = (2·w·Σk − n·(2·Mc − w)) / (2·n·10^scale), in units of 10^-scale
        let widthUnits = Int128(binning.width.units(atScale: scale))
        let excess = 2 * widthUnits * indexSum - Int128(events) * (2 * Int128(mcUnits) - widthUnits)
        let meanAboveFloor = Double(excess) / (2 * eventCount * pow(10, Double(scale)))
        let bValue = log10(exp(1.0)) / meanAboveFloor
        // Σ(M − mean)² = Δ²·(n·Σk² − (Σk)²) / n
        let spread = Double(Int128(events) * squareSum - indexSum * indexSum)
        let deviation = width * (spread / (eventCount * eventCount * (eventCount - 1))).squareRoot()
        b = bValue
        bUncertainty = 2.3 * bValue * bValue * deviation
        a = log10(eventCount) + bValue * completeness.double
    }
}
