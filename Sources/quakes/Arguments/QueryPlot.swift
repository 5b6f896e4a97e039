import ArgumentParser

/// What `quakes query --format svg` draws (`--plot`).
enum QueryPlot: String, CaseIterable, ExpressibleByArgument, Equatable {
    /// The events on a map (``MapPicture``), the default.
    case map
    /// Magnitude against time, a dot per event (``MagnitudeTimeChart``).
    case magtime
}
