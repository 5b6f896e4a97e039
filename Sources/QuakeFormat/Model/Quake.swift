import Foundation

/// One earthquake event with every field of the USGS summary feeds.
///
/// Fields a feed left empty are nil. `time` and `updated` are UTC; numbers are the values the
/// feed wrote. Use it with Foundation's `#Predicate<Quake>` and `SortDescriptor<Quake>` in a
/// ``FetchDescriptor``.
public struct Quake: Sendable, Hashable, Identifiable, Codable {
    /// The USGS event id, e.g. `ci37260128`.
    public var id: String
    public var time: Date
    public var latitude: Double
    public var longitude: Double
    /// Depth in km.
    public var depth: Double?
    /// Magnitude (`mag`).
    public var magnitude: Double?
    public var magType: String?
    public var nst: Int?
    public var gap: Double?
    public var dmin: Double?
    public var rms: Double?
    public var net: String?
    public var updated: Date?
    /// Place name, e.g. `10 km NE of Pāhala, Hawaii`.
    public var place: String?
    public var type: String?
    public var horizontalError: Double?
    public var depthError: Double?
    public var magError: Double?
    public var magNst: Int?
    public var status: String?
    public var locationSource: String?
    public var magSource: String?
    public var felt: Int?
    public var cdi: Double?
    public var mmi: Double?
    public var alert: String?
    public var tsunami: Int?
    public var sig: Int?
    public var tz: Int?
    public var url: String?
    public var detail: String?
    public var code: String?
    public var ids: String?
    public var sources: String?
    public var types: String?
    public var title: String?

    public init(id: String, time: Date, latitude: Double, longitude: Double, depth: Double? = nil, magnitude: Double? = nil,
                place: String? = nil) {
        self.id = id
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.depth = depth
        self.magnitude = magnitude
        self.place = place
    }

    /// The time in epoch milliseconds, as stored.
    /// Dates beyond what 64-bit milliseconds hold saturate.
    public var timeMilliseconds: Int64 {
        let ms = (time.timeIntervalSince1970 * 1000).rounded()
        return Int64(exactly: ms) ?? (ms > 0 ? .max : .min)
    }
}

extension Date {
    /// A date from UTC epoch milliseconds.
    package init(epochMilliseconds ms: Int64) { self.init(timeIntervalSince1970: Double(ms) / 1000) }
}

extension Quake {
    /// Builds the event in `row` of a batch; `columns` limits which optional fields are filled.
    package init(batch b: RowBatch, row i: Int, columns: ColumnSet? = nil) {
        func want(_ c: Column) -> Bool { columns?.contains(c) ?? true }
        func dbl(_ c: Column) -> Double? {
            guard want(c) else { return nil }
            let v = b.ints[c.rawValue][i]
            return v == RowBatch.null ? nil : ScaledDecimal.double(v)
        }
        func int(_ c: Column) -> Int? { dbl(c).map { Int($0) } }
        func str(_ c: Column) -> String? { want(c) ? b.text[c.rawValue].string(i) : nil }
        self.init(id: b.text[Column.id.rawValue].string(i) ?? "",
                  time: Date(epochMilliseconds: b.ints[Column.time.rawValue][i]),
                  latitude: ScaledDecimal.double(b.ints[Column.latitude.rawValue][i]),
                  longitude: ScaledDecimal.double(b.ints[Column.longitude.rawValue][i]))
        depth = dbl(.depth); magnitude = dbl(.mag); magType = str(.magType); nst = int(.nst); gap = dbl(.gap)
        dmin = dbl(.dmin); rms = dbl(.rms); net = str(.net)
        let u = b.ints[Column.updated.rawValue][i]
        updated = want(.updated) && u != RowBatch.null ? Date(epochMilliseconds: u) : nil
        place = str(.place); type = str(.type); horizontalError = dbl(.horizontalError); depthError = dbl(.depthError)
        magError = dbl(.magError); magNst = int(.magNst); status = str(.status); locationSource = str(.locationSource)
        magSource = str(.magSource); felt = int(.felt); cdi = dbl(.cdi); mmi = dbl(.mmi); alert = str(.alert)
        tsunami = int(.tsunami); sig = int(.sig); tz = int(.tz); url = str(.url); detail = str(.detail); code = str(.code)
        ids = str(.ids); sources = str(.sources); types = str(.types); title = str(.title)
    }
}
