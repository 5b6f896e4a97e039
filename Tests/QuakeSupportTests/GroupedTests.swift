import Foundation
import QuakeSupport
import Testing

/// `grouped` writes what Foundation's `formatted()` writes for `en_US`, digit for digit.
@Suite struct GroupedTests {
    @Test func matchesFoundationsFormatting() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var values: [Int] = [0, 1, -1, 9, 10, 99, 100, 999, 1_000, -1_000, 12_345, 999_999, 1_000_000, .max, .min]
        for _ in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let digits = Int(state >> 58) % 19 + 1
            let value = Int(truncatingIfNeeded: state >> 3) % Int(pow(10.0, Double(min(digits, 18))))
            values.append(state & 1 == 0 ? value : -value)
        }
        let english = IntegerFormatStyle<Int>(locale: Locale(identifier: "en_US"))
        for value in values {
            #expect(value.grouped == value.formatted(english), "\(value)")
        }
        #expect(UInt64.max.grouped == "18,446,744,073,709,551,615")
    }
}
