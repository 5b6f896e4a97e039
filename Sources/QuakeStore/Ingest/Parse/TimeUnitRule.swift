import QuakeFormat
/// The unit of integer times (`time`, `updated`) in a GeoJSON feed: USGS writes epoch
/// milliseconds, but feeds re-saved by other tools sometimes carry epoch seconds.
///
/// Set ``LoadOptions/timeUnit`` to say which. Left nil, the loader decides per file from its
/// first integer time: a value under 10¹⁰ in magnitude, which as milliseconds would fall within
/// 116 days of 1970, is read as seconds unless the event's `updated` says otherwise. Later rows
/// that disagree with the file's unit are rejected, never placed in 1970; a strict load refuses
/// to guess seconds.
public enum TimeUnit: String, Sendable, CaseIterable {
    /// Seconds since 1970-01-01T00:00:00Z (the CLI's `--time-unit s`).
    case seconds = "s"
    /// Milliseconds since 1970-01-01T00:00:00Z, as USGS writes them (`--time-unit ms`).
    case milliseconds = "ms"
}

/// Decides, once per file, whether its integer times are seconds or milliseconds, and checks
/// every later row against that choice.
///
/// The rule: a time `t` with |t| < 1e10 reads as milliseconds as a moment within 116 days of
/// 1970-01-01, and as seconds as a moment between 1653 and 2286. The file is in seconds when
/// its first integer time is that small and its `updated` does not say otherwise: `updated` is
/// missing, is itself that small, or (in milliseconds) comes after `t` read as seconds. Any
/// other file is in milliseconds. Later rows that disagree (a seconds-shaped row in a file of
/// milliseconds, or a milliseconds-shaped one in a file of seconds) are rejected with the
/// reason, never silently placed in 1970. `--time-unit s|ms` replaces the guess; under
/// `--strict`, guessing seconds is an error unless `--time-unit` says which.
package struct TimeUnitRule {
    /// The unit given by the user, if any.
    package let given: TimeUnit?
    package let strict: Bool
    package let file: String
    package private(set) var unit: TimeUnit?

    package init(given: TimeUnit?, strict: Bool, file: String) {
        self.given = given
        self.strict = strict
        self.file = file
        unit = given
    }

    package static let smallLimit: Int64 = 10_000_000_000

    package static func small(_ v: Int64) -> Bool { v > -smallLimit && v < smallLimit }

    /// Whether one row's integer `time` (and `updated`, nil when missing or not an integer)
    /// look like seconds.
    package static func looksLikeSeconds(time t: Int64, updated: Int64?) -> Bool {
        guard small(t) else { return false }
        guard let updated, !small(updated) else { return true }
        return t * 1000 <= updated
    }

    /// Settles the file's unit on its first integer time. Returns the one warning line to
    /// print when the file is read as seconds by guess; throws under `--strict`.
    package mutating func decide(time t: Int64, updated u: Int64?,
                                 names: LoadOptions.OptionNames) throws(QuakeError) -> String? {
        guard unit == nil else { return nil }
        guard TimeUnitRule.looksLikeSeconds(time: t, updated: u) else {
            unit = .milliseconds
            return nil
        }
        let asSeconds = Timestamp.string(t * 1000)
        let asMillis = Timestamp.string(t)
        if strict {
            throw QuakeError(.ambiguousTimeUnit, path: file, detail: "integer times look like epoch seconds (\(t) is "
                + "\(asSeconds) in seconds, \(asMillis) in milliseconds); say which with \(names.timeUnit)")
        }
        unit = .seconds
        return "\(file): reading integer times as epoch seconds (\(t) is \(asSeconds); in milliseconds it "
            + "would be \(asMillis)); \(names.timeUnitMilliseconds) if that is wrong"
    }

    /// `v` in milliseconds, for a field that held an integer; throws when the row disagrees
    /// with the file's unit (only when the unit was guessed).
    package func milliseconds(_ v: Int64, _ c: Column, time t: Int64, updated u: Int64?,
                              names: LoadOptions.OptionNames) throws(FieldError) -> Int64 {
        switch unit ?? .milliseconds {
        case .milliseconds:
            if given == nil, c == .time, TimeUnitRule.looksLikeSeconds(time: t, updated: u) {
                throw FieldError(reason: "time: \(v) looks like epoch seconds in a file of milliseconds "
                    + "(\(Timestamp.string(v.multipliedReportingOverflow(by: 1000).partialValue))); "
                    + "say which with \(names.timeUnit)")
            }
            return v
        case .seconds:
            if given == nil, !TimeUnitRule.small(v) {
                throw FieldError(reason: "\(c): \(v) looks like epoch milliseconds in a file of seconds; "
                    + "say which with \(names.timeUnit)")
            }
            let (ms, overflow) = v.multipliedReportingOverflow(by: 1000)
            if overflow { throw FieldError(reason: "\(c): \(v) seconds is out of range") }
            return ms
        }
    }
}
