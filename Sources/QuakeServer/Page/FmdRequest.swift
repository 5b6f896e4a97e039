import Foundation
import QuakeFormat
import QuakeStore

/// What `/api/fmd` is asked: the page's view (``ViewRequest``, the same parameters as `/api/day`)
/// and the distribution's `bin` width (default 0.1), `mc` (`maxc`, the default, or a magnitude)
/// and `mc_correction` (with `maxc` only; default 0.2): `quakes fmd`'s `--bin`, `--mc` and
/// `--mc-correction`.
struct FmdRequest: Sendable {
    /// The view whose events are counted.
    var view: ViewRequest
    /// The bin width Δ.
    var bin = 0.1
    /// How Mc is found.
    var completeness = MagnitudeOfCompleteness.maximumCurvature(correction: 0.2)

    /// The parameters of the distribution, beside the view's.
    static let names = ["bin", "mc", "mc_correction"]

    /// - Parameter now: the clock, in milliseconds since 1970, for `last`.
    init(_ items: [(name: String, value: String)],
         now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) throws(FDSNError) {
        var own: [String: String] = [:]
        var viewItems: [(name: String, value: String)] = []
        for item in items {
            guard Self.names.contains(item.name) else {
                viewItems.append(item)
                continue
            }
            guard own[item.name] == nil else { throw .badRequest("A parameter is given more than once") }
            own[item.name] = item.value
        }
        do throws(FDSNError) {
            view = try ViewRequest(viewItems, now: now)
        } catch {
            // the view's list of names, and the distribution's
            guard error.detail.hasPrefix("Unknown parameter") else { throw error }
            throw .badRequest(error.detail + ", " + Self.names.joined(separator: ", "))
        }
        if let text = own["bin"] {
            bin = try Self.number(text, "bin", "a bin width above 0 such as 0.1")
            guard bin > 0 else { throw .badRequest("Bad bin value '\(text)': a bin width above 0 such as 0.1") }
        }
        var correction: Double?
        if let text = own["mc_correction"] {
            correction = try Self.number(text, "mc_correction",
                                         "a magnitude added to the maximum curvature's, such as 0.2")
        }
        switch own["mc"] {
        case nil, "maxc":
            completeness = .maximumCurvature(correction: correction ?? 0.2)
        case let text?:
            guard correction == nil else { throw .badRequest("mc_correction goes with mc=maxc, not a fixed Mc") }
            completeness = .fixed(try Self.number(text, "mc", "maxc or a magnitude such as 2.5"))
        }
    }

    /// `text` as a finite number, or a 400 naming `name` and what it may be.
    private static func number(_ text: String, _ name: String, _ allowed: String) throws(FDSNError) -> Double {
        guard text.utf8.count <= 40, let value = Double(text), value.isFinite else {
            let shown = text.utf8.count <= 40 ? text : String(text.prefix(40)) + "…"
            throw .badRequest("Bad \(name) value '\(shown)': \(allowed)")
        }
        return value
    }
}
