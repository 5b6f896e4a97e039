import QuakeFormat

/// A decimal `units / 10^scale`, exact: a bin width, an Mc or its correction as written.
package struct DecimalValue: Sendable, Equatable {
    package var units: Int64
    package var scale: Int

    /// The decimals beyond which a bin width, an Mc or a correction is refused.
    package static let maxScale = 9

    package init(units: Int64, scale: Int) {
        self.units = units
        self.scale = scale
    }

    /// The shortest decimal that reads back as `value` (`0.1` for 0.1), or nil when it needs
    /// more than ``maxScale`` decimals or is out of range.
    package init?(_ value: Double) {
        guard value.isFinite, abs(value) < 1e9 else { return nil }
        for scale in 0...DecimalValue.maxScale {
            let scaled = (value * ScaledDecimal.pow10[scale]).rounded()
            let units = Int64(scaled)
            if Double(units) / ScaledDecimal.pow10[scale] == value {
                self.init(units: units, scale: scale)
                return
            }
        }
        return nil
    }

    /// The value's units at the larger scale `target` (`target >= scale`).
    package func units(atScale target: Int) -> Int64 {
        var result = units
        for _ in scale..<target { result *= 10 }
        return result
    }

    /// The nearest double.
    package var double: Double { Double(units) / ScaledDecimal.pow10[scale] }
}

/// Bins magnitudes as `floor(M/Δ + 1/2)` in integers, from the stored scaled decimal
/// (`mantissa << 6 | flags | scale`): bin `k` holds magnitudes from `(k − 1/2)·Δ` up to,
/// not including, `(k + 1/2)·Δ`, and its centre is `k·Δ`.
///
/// With `M = m / 10^s` and `Δ = d / 10^t`, `floor(M/Δ + 1/2) = floor((2·m·10^t + d·10^s) / (2·d·10^s))`:
/// one multiplication, one addition and one floor division on `Int64` per row, each scale's
/// constants computed once; a product past `Int64` goes through `Int128`.
package struct MagnitudeBinning: Sendable {
    package let width: DecimalValue
    /// The widest bin width taken. With it and ``BinTally/maxIndex``, every sum the estimate forms
    /// fits its integers: a bin's centre in units of 10^-9 stays below 2^61.
    package static let widestBin = 100.0
    /// Per stored scale `s`: `d·10^s` (0 when it would overflow).
    private let halfWidths: [Int64]
    /// `2·10^t`.
    private let mantissaFactor: Int64

    package init(width: DecimalValue) {
        self.width = width
        var widths: [Int64] = []
        for storedScale in 0...31 {
            var value: Int64? = width.units
            for _ in 0..<storedScale {
                guard let current = value else { break }
                let (product, overflow) = current.multipliedReportingOverflow(by: 10)
                value = overflow || product > Int64.max / 4 ? nil : product
            }
            widths.append(value ?? 0)
        }
        halfWidths = widths
        mantissaFactor = 2 * Self.power(width.scale)
    }

    private static func power(_ exponent: Int) -> Int64 {
        var result: Int64 = 1
        for _ in 0..<exponent { result *= 10 }
        return result
    }

    /// The bin index of stored decimal `encoded` (not null).
    @inline(__always)
    package func index(_ encoded: Int64) -> Int64 {
        let scale = Int(encoded & 31)
        let mantissa = encoded >> 6
        let widthAtScale = halfWidths[scale]
        let (doubled, overflow) = mantissa.multipliedReportingOverflow(by: mantissaFactor)
        guard widthAtScale != 0, !overflow, doubled.magnitude < UInt64(Int64.max / 2) else {
            return wideIndex(mantissa: mantissa, scale: scale)
        }
        return Self.floorDivide(doubled + widthAtScale, 2 * widthAtScale)
    }

    /// ``index(_:)`` for the rare values whose products pass `Int64`.
    private func wideIndex(mantissa: Int64, scale: Int) -> Int64 {
        var widthAtScale = Int128(width.units)
        for _ in 0..<scale {
            let (product, overflow) = widthAtScale.multipliedReportingOverflow(by: 10)
            // a width this many decimals down dwarfs any stored mantissa: the magnitude is in bin 0
            if overflow { return 0 }
            widthAtScale = product
        }
        let numerator = Int128(mantissa) * Int128(mantissaFactor) + widthAtScale
        let denominator = 2 * widthAtScale
        var quotient = numerator / denominator
        if numerator % denominator != 0 && numerator < 0 { quotient -= 1 }
        return Int64(clamping: quotient)
    }

    /// `floor(numerator / denominator)` for a positive denominator.
    @inline(__always)
    static func floorDivide(_ numerator: Int64, _ denominator: Int64) -> Int64 {
        let quotient = numerator / denominator
        return numerator % denominator != 0 && numerator < 0 ? quotient - 1 : quotient
    }

    /// The bin index of the decimal `units / 10^scale`.
    package func index(units: Int64, scale: Int) -> Int64 {
        wideIndex(mantissa: units, scale: scale)
    }

    /// The centre of bin `index`, `index·Δ`, as the nearest double (`0.3`, not `0.30000000000000004`).
    package func magnitude(_ index: Int64) -> Double {
        Double(index * width.units) / ScaledDecimal.pow10[width.scale]
    }

    /// The centre of bin `index` in units of `10^-scale` (`scale >= width.scale`).
    package func centreUnits(_ index: Int64, atScale scale: Int) -> Int64 {
        index * width.units(atScale: scale)
    }
}
