import QuakeFormat
import QuakeStore

/// The `distance_km` output field: each event's great-circle distance from a centre (`--near`),
/// worked out from its stored latitude and longitude as it is written. It is not a stored
/// column, so writers place it by position among their columns.
package struct DistanceField: Sendable {
    /// The name output gives it, as SQL users write it.
    package static let name = "distance_km"

    package let latitude: Double
    package let longitude: Double
    /// Where the field goes among the output's columns: before `columns[position]`
    /// (`columns.count` puts it last).
    package var position: Int

    package init(latitude: Double, longitude: Double, position: Int) {
        self.latitude = latitude
        self.longitude = longitude
        self.position = position
    }

    /// The distance of row `row` of `batch` in km, or nil when the event has no latitude or longitude.
    package func km(_ batch: RowBatch, _ row: Int) -> Double? {
        let la = batch.ints[Column.latitude.rawValue][row]
        let lo = batch.ints[Column.longitude.rawValue][row]
        guard la != RowBatch.null, lo != RowBatch.null else { return nil }
        let distance = Geo.distanceKm(latitude, longitude, ScaledDecimal.double(la), ScaledDecimal.double(lo))
        return distance.isFinite ? distance : nil
    }

    /// `km` to the metre: `123.456`. Distances on Earth stay under 20,016 km; anything outside
    /// 0...1e12 (which ``km(_:_:)`` never gives) is clamped rather than trapping.
    package static func text(_ km: Double) -> String {
        let metres = Int64((Swift.min(Swift.max(km.isFinite ? km : 0, 0), 1e12) * 1000).rounded())
        let frac = String(metres % 1000)
        return "\(metres / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    /// The value of row `row` as text, or nil for null.
    package func text(_ batch: RowBatch, _ row: Int) -> String? { km(batch, row).map(DistanceField.text) }

    /// Appends row `row`'s value, or `null` (`nullText`) when it has none.
    package func write(_ batch: RowBatch, _ row: Int, into out: inout [UInt8], nullText: String = "null") {
        out.append(contentsOf: (text(batch, row) ?? nullText).utf8)
    }
}
