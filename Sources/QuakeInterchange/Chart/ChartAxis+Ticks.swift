import Foundation

extension ChartAxis {
    /// The most ticks an axis draws, whatever its span.
    static let tickLimit = 400

    /// Ticks at the multiples of a 1-2-5 step within `lower...upper`, labelled with as many
    /// decimals as the step needs.
    static func linearTicks(_ lower: Double, _ upper: Double) -> [Tick] {
        let step = niceStep(upper - lower, target: 6)
        let slack = 1e-9
        let first = (lower / step - slack).rounded(.up)
        let last = (upper / step + slack).rounded(.down)
        guard first.isFinite, last.isFinite, last >= first, last - first < Double(tickLimit) else { return [] }
        let decimals = max(0, Int(-log10(step).rounded(.down)))
        var ticks: [Tick] = []
        var multiple = first
        while multiple <= last {
            let value = multiple * step
            ticks.append(Tick(value: value, label: ChartAxis.decimal(value, decimals: decimals)))
            multiple += 1
        }
        return ticks
    }

    /// `value` with `decimals` decimals, never `-0`.
    package static func decimal(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "" }
        let text = String(format: "%.\(min(max(decimals, 0), 12))f", value)
        let zero = String(format: "%.\(min(max(decimals, 0), 12))f", 0.0)
        return text == "-" + zero ? zero : text
    }

    /// A labelled tick at each power of ten within `lower...upper`, and unlabelled minor ticks
    /// at 2–9 times each.
    static func decadeTicks(_ lower: Double, _ upper: Double) -> [Tick] {
        let slack = 1e-9
        let firstDecade = (log10(lower) - slack).rounded(.down)
        let lastDecade = (log10(upper) + slack).rounded(.down)
        guard firstDecade.isFinite, lastDecade.isFinite, lastDecade - firstDecade < 300 else { return [] }
        var ticks: [Tick] = []
        var exponent = firstDecade
        while exponent <= lastDecade {
            let decade = pow(10, exponent)
            for multiple in 1...9 {
                let value = decade * Double(multiple)
                guard value >= lower * (1 - slack), value <= upper * (1 + slack) else { continue }
                ticks.append(multiple == 1 ? Tick(value: value, label: ChartAxis.power(Int(exponent)))
                             : Tick(value: value, label: "", isMajor: false))
            }
            exponent += 1
        }
        return ticks
    }

    /// The text of 10^`exponent`: `1`, `10`, ..., `100000`, `0.1`, `0.01`, `0.001`, else `10⁶`, `10⁻⁴`.
    package static func power(_ exponent: Int) -> String {
        if exponent >= 0 && exponent <= 5 { return "1" + String(repeating: "0", count: exponent) }
        if exponent < 0 && exponent >= -3 { return "0." + String(repeating: "0", count: -exponent - 1) + "1" }
        let superscripts: [Character: String] = ["0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵",
                                                 "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹", "-": "⁻"]
        return "10" + String(exponent).map { superscripts[$0] ?? "" }.joined()
    }
}
