/// The frequency–magnitude distribution (FMD) of a set of events: its magnitude bins, the
/// magnitude of completeness Mc, and the Gutenberg–Richter b-value with its uncertainty and a.
///
/// Definitions (see ``Store/frequencyMagnitude(_:bin:mc:)``):
/// - a magnitude M falls in the bin `floor(M/Δ + 1/2)·Δ`, computed on the stored decimal;
/// - `b = log10(e) / (mean(M) − (Mc − Δ/2))` over the binned magnitudes at or above Mc
///   (Aki 1965, with Utsu's 1966 correction for binning);
/// - `σ(b) = 2.3 · b² · sqrt(Σ(M − mean)² / (n(n − 1)))` (Shi & Bolt 1982);
/// - `a = log10(n) + b·Mc`.
///
/// Its JSON keys are the CLI's (`without_magnitude`, `events_above_mc`, `b_uncertainty`).
public struct FrequencyMagnitude: Codable, Sendable, Equatable {
    /// One magnitude bin: its centre, its events, and the events at or above it.
    public struct Bin: Codable, Sendable, Equatable {
        /// The bin's centre, `k·Δ`, as the nearest double (`2.3`, not `2.3000000000000003`).
        public var magnitude: Double
        /// The events in the bin.
        public var count: Int
        /// The events in this bin and every bin above it.
        public var cumulative: Int

        /// A bin of `count` events centred on `magnitude`, with `cumulative` at or above it.
        public init(magnitude: Double, count: Int, cumulative: Int) {
            self.magnitude = magnitude
            self.count = count
            self.cumulative = cumulative
        }
    }

    /// The matching events, with a magnitude or not.
    public var count: Int
    /// The matching events without a magnitude, left out of every other figure.
    public var withoutMagnitude: Int
    /// The bin width Δ.
    public var bin: Double
    /// The magnitude of completeness; nil when no event has a magnitude.
    public var mc: Double?
    /// The events whose binned magnitude is at or above ``mc``.
    public var eventsAboveMc: Int
    /// The b-value; nil when fewer than ``FrequencyMagnitude/minimumEvents`` events are at or above Mc.
    public var b: Double?
    /// The b-value's standard deviation (Shi & Bolt 1982); nil with ``b``.
    public var bUncertainty: Double?
    /// The a-value, `log10(n) + b·Mc`; nil with ``b``.
    public var a: Double?
    /// Every bin from the lowest to the highest, empty ones too.
    public var bins: [Bin]

    /// The fewest events at or above Mc for which a b-value is given.
    public static let minimumEvents = 50

    /// A distribution with the given figures, as ``Store/frequencyMagnitude(_:bin:mc:)`` makes them.
    public init(count: Int, withoutMagnitude: Int, bin: Double, mc: Double?, eventsAboveMc: Int, b: Double?,
                bUncertainty: Double?, a: Double?, bins: [Bin]) {
        self.count = count
        self.withoutMagnitude = withoutMagnitude
        self.bin = bin
        self.mc = mc
        self.eventsAboveMc = eventsAboveMc
        self.b = b
        self.bUncertainty = bUncertainty
        self.a = a
        self.bins = bins
    }

    enum CodingKeys: String, CodingKey {
        case count
        case withoutMagnitude = "without_magnitude"
        case bin
        case mc
        case eventsAboveMc = "events_above_mc"
        case b
        case bUncertainty = "b_uncertainty"
        case a
        case bins
    }

    /// Writes every key, `null` for an absent Mc, b, σ or a (the synthesized form would leave them out).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(count, forKey: .count)
        try container.encode(withoutMagnitude, forKey: .withoutMagnitude)
        try container.encode(bin, forKey: .bin)
        try container.encode(mc, forKey: .mc)
        try container.encode(eventsAboveMc, forKey: .eventsAboveMc)
        try container.encode(b, forKey: .b)
        try container.encode(bUncertainty, forKey: .bUncertainty)
        try container.encode(a, forKey: .a)
        try container.encode(bins, forKey: .bins)
    }
}

/// How the magnitude of completeness Mc is found.
public enum MagnitudeOfCompleteness: Sendable, Equatable, Hashable {
    /// Maximum curvature: the bin with the most events (the lowest such bin on a tie), plus
    /// `correction` (0.2 after Woessner & Wiemer 2005).
    case maximumCurvature(correction: Double)
    /// A fixed Mc.
    case fixed(Double)
}

/// How ``Store/frequencyMagnitude(_:bin:mc:by:)`` groups events.
public enum FrequencyMagnitudeGrouping: Sendable, Equatable, Hashable {
    /// One group per calendar year (UTC), keyed `2024`.
    case year
    /// One group per calendar month (UTC), keyed `2024-06`.
    case month
    /// Windows of this many consecutive events with a magnitude, in time order, keyed by the
    /// time of the window's first event. Events without a magnitude count in the window they
    /// fall in; the last window may hold fewer events.
    case events(Int)
}

/// One group of ``Store/frequencyMagnitude(_:bin:mc:by:)``: its key and its distribution,
/// coded flat (`{"key": ..., "count": ..., ...}`).
public struct FrequencyMagnitudeGroup: Codable, Sendable, Equatable {
    /// The group: a year (`2024`), a month (`2024-06`), or a window's first event time (ISO 8601).
    public var key: String
    /// The distribution of the group's events.
    public var distribution: FrequencyMagnitude

    /// A group `key` with its distribution.
    public init(key: String, distribution: FrequencyMagnitude) {
        self.key = key
        self.distribution = distribution
    }

    private enum KeyCodingKeys: String, CodingKey { case key }

    public init(from decoder: any Decoder) throws {
        key = try decoder.container(keyedBy: KeyCodingKeys.self).decode(String.self, forKey: .key)
        distribution = try FrequencyMagnitude(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: KeyCodingKeys.self)
        try container.encode(key, forKey: .key)
        try distribution.encode(to: encoder)
    }
}
