import QuakeFormat

extension Store {
    /// The frequency–magnitude distribution of the events `descriptor`'s predicate matches
    /// (its sort, limit and offset are not used): the bins of width `bin`, Mc found by `mc`,
    /// and the b-value, its uncertainty and a. See ``FrequencyMagnitude`` for the definitions.
    ///
    /// Events without a magnitude are left out and counted in ``FrequencyMagnitude/withoutMagnitude``.
    /// - Throws: ``QuakeError`` of kind `invalidArgument` for a bin width that is not above 0 or
    ///   has more than 9 decimals (so too an Mc or its correction), `corrupt` or `io`.
    /// - Complexity: one counting pass; a granule the predicate takes whole is tallied from its
    ///   exact magnitude histogram without decoding, other matching rows by their `mag` column.
    public func frequencyMagnitude(_ descriptor: FetchDescriptor<Quake>, bin: Double = 0.1,
                                   mc: MagnitudeOfCompleteness = .maximumCurvature(correction: 0.2))
        throws -> FrequencyMagnitude {
        let plan = try FetchPlan(descriptor)
        try checkUnwraps(plan)
        return try frequencyMagnitude(plan.filter, bin: bin, mc: mc)
    }

    /// ``frequencyMagnitude(_:bin:mc:)`` per year, per month, or per window of consecutive
    /// events; each group with its own Mc unless `mc` is ``MagnitudeOfCompleteness/fixed(_:)``,
    /// and without a b-value when fewer than 50 of its events are at or above its Mc.
    /// Groups come in time order; groups without events are left out.
    /// - Throws: as ``frequencyMagnitude(_:bin:mc:)``, and `invalidArgument` for a window of
    ///   fewer than 1 event.
    public func frequencyMagnitude(_ descriptor: FetchDescriptor<Quake>, bin: Double = 0.1,
                                   mc: MagnitudeOfCompleteness = .maximumCurvature(correction: 0.2),
                                   by grouping: FrequencyMagnitudeGrouping) throws -> [FrequencyMagnitudeGroup] {
        let plan = try FetchPlan(descriptor)
        try checkUnwraps(plan)
        return try frequencyMagnitude(plan.filter, bin: bin, mc: mc, by: grouping)
    }

    /// ``frequencyMagnitude(_:bin:mc:)`` for a ``Filter`` (the CLI's flags), over `snapshot`
    /// (the server's one generation per answer) or the current manifest.
    package func frequencyMagnitude(_ filter: Filter, bin: Double, mc: MagnitudeOfCompleteness,
                                    snapshot: Manifest? = nil) throws -> FrequencyMagnitude {
        let binning = try Store.magnitudeBinning(bin, mc: mc)
        let scan = try FrequencyMagnitudeScan(store: self, filter: filter, binning: binning, snapshot: snapshot)
        let tally = try scan.tallies(by: nil)[0] ?? BinTally()
        return try FrequencyMagnitude(tally: tally, binning: binning, mc: mc)
    }

    /// ``frequencyMagnitude(_:bin:mc:by:)`` for a ``Filter`` (the CLI's flags).
    package func frequencyMagnitude(_ filter: Filter, bin: Double, mc: MagnitudeOfCompleteness,
                                    by grouping: FrequencyMagnitudeGrouping) throws -> [FrequencyMagnitudeGroup] {
        let binning = try Store.magnitudeBinning(bin, mc: mc)
        let scan = try FrequencyMagnitudeScan(store: self, filter: filter, binning: binning)
        switch grouping {
        case .year, .month:
            let bucket: GroupBy.TimeBucket = grouping == .year ? .year : .month
            let tallies = try scan.tallies(by: bucket)
            return try tallies.keys.sorted().map { start in
                FrequencyMagnitudeGroup(key: Store.bucketName(start, bucket),
                                        distribution: try FrequencyMagnitude(tally: tallies[start] ?? BinTally(),
                                                                             binning: binning, mc: mc))
            }
        case .events(let size):
            guard size >= 1 else { throw QuakeError.argument("the window", "1 event or more, not \(size)") }
            return try scan.windows(of: size).map { window in
                FrequencyMagnitudeGroup(key: Timestamp.string(window.firstTime),
                                        distribution: try FrequencyMagnitude(tally: window.tally, binning: binning,
                                                                             mc: mc))
            }
        }
    }

    /// The binning of width `bin`, once `bin` and `mc` are checked.
    private static func magnitudeBinning(_ bin: Double, mc: MagnitudeOfCompleteness) throws(QuakeError)
        -> MagnitudeBinning {
        guard bin > 0, bin <= MagnitudeBinning.widestBin, let width = DecimalValue(bin), width.units > 0 else {
            throw QuakeError.argument("the bin width", "a number above 0 and at most "
                + "\(Int(MagnitudeBinning.widestBin)) with at most \(DecimalValue.maxScale) decimals, not \(bin)")
        }
        switch mc {
        case .fixed(let value):
            guard DecimalValue(value) != nil else {
                throw QuakeError.argument("Mc",
                                          "a number with at most \(DecimalValue.maxScale) decimals, not \(value)")
            }
        case .maximumCurvature(let correction):
            guard DecimalValue(correction) != nil else {
                throw QuakeError.argument("the Mc correction",
                                          "a number with at most \(DecimalValue.maxScale) decimals, not \(correction)")
            }
        }
        return MagnitudeBinning(width: width)
    }

    /// `2024` for a year, `2024-06` for a month starting at `start`.
    static func bucketName(_ start: Int64, _ bucket: GroupBy.TimeBucket) -> String {
        let (year, month, _) = Timestamp.civil(days: Int(start / 86_400_000))
        guard bucket == .month else { return String(year) }
        return String(year) + (month < 10 ? "-0" : "-") + String(month)
    }
}
