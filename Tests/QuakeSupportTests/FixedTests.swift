import Foundation
import QuakeSupport
import Testing

/// `fixed(_:)` writes what `String(format: "%.Nf")` writes, digit for digit, away from ties.
@Suite struct FixedTests {
    @Test func matchesPrintfAwayFromTies() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var values: [Double] = [0, -0.0, 1, -1, 0.004, 0.005001, 9.995001, 99.999, 1e14, -1e14, 0.1, 123.456]
        for _ in 0..<4_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let exponent = Int(state >> 59) - 12  // 10^-12 ... 10^19: past 9e15 units too
            let mantissa = Double(state >> 11) / Double(1 << 53)
            let value = mantissa * pow(10, Double(exponent))
            values.append(state & 1 == 0 ? value : -value)
        }
        var compared = 0
        for value in values {
            for places in [0, 1, 2, 3, 6] {
                let scaled = abs(value) * pow(10, Double(places))
                guard scaled < 9e15 else {
                    #expect(value.fixed(places) == value.description)
                    continue
                }
                // within a hair of a tie printf rounds the exact binary value to even: not compared
                if abs(scaled - scaled.rounded(.down) - 0.5) < max(1e-6, scaled * 1e-15) { continue }
                #expect(value.fixed(places) == String(format: "%.\(places)f", value), "\(value) \(places)")
                compared += 1
            }
        }
        #expect(compared > 15_000)
        #expect(Double.infinity.fixed(2) == "inf" && Double.nan.fixed(1) == "nan")
        #expect((12.345678).fixed(2) == "12.35" && (0.0).fixed(1) == "0.0" && (-2.5).fixed(0) == "-3")
    }
}
