extension Double {
    /// The number in decimal with `places` digits after the point (0-9), rounded to the nearest,
    /// as `String(format: "%.*f")` writes it for every value not within a hair of a tie (there
    /// this rounds away from zero, printf to even); without Foundation's formatter, which cost a
    /// small load half a millisecond. Infinities, NaN and values of 9e15 units of the last place
    /// or more: `description`.
    public func fixed(_ places: Int) -> String {
        let digits = Swift.min(Swift.max(places, 0), 9)
        guard isFinite else { return description }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(self) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e15 else { return description }
        let units = Int64(scaled)
        let divisor = Int64(scale)
        let whole = String(units / divisor)
        let sign = self.sign == .minus ? "-" : ""
        guard digits > 0 else { return sign + whole }
        let fraction = String(units % divisor)
        return sign + whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
}
