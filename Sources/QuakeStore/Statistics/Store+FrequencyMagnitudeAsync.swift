extension Store {
    /// ``frequencyMagnitude(_:bin:mc:)``, off the caller's executor; cancelling the task stops it.
    public func frequencyMagnitude(_ descriptor: FetchDescriptor<Quake>, bin: Double = 0.1,
                                   mc: MagnitudeOfCompleteness = .maximumCurvature(correction: 0.2))
        async throws -> FrequencyMagnitude {
        try await offExecutor { _ in try self.frequencyMagnitude(descriptor, bin: bin, mc: mc) }
    }

    /// ``frequencyMagnitude(_:bin:mc:by:)``, off the caller's executor; cancelling the task stops it.
    public func frequencyMagnitude(_ descriptor: FetchDescriptor<Quake>, bin: Double = 0.1,
                                   mc: MagnitudeOfCompleteness = .maximumCurvature(correction: 0.2),
                                   by grouping: FrequencyMagnitudeGrouping) async throws -> [FrequencyMagnitudeGroup] {
        try await offExecutor { _ in try self.frequencyMagnitude(descriptor, bin: bin, mc: mc, by: grouping) }
    }
}
