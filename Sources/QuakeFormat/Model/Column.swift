/// Every stored field of a USGS event, in storage order.
///
/// The raw value is the column's ordinal in a ``RowBatch`` and its file name stem on disk.
public enum Column: Int, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    case time, latitude, longitude, depth, mag, magType, nst, gap, dmin, rms, net, id, updated, place, type
    case horizontalError, depthError, magError, magNst, status, locationSource, magSource
    case felt, cdi, mmi, alert, tsunami, sig, tz, url, detail, code, ids, sources, types, title

    /// How a column is held in memory and encoded on disk.
    @usableFromInline
    package enum Kind: Sendable {
        /// UTC epoch milliseconds, `Int64`.
        case timestamp
        /// A decimal number kept as a scaled integer so its text round-trips exactly.
        case decimal
        /// A low-cardinality string, dictionary-encoded.
        case category
        /// A free string (ids, urls, titles).
        case text
        /// The place name, pattern-encoded as distance, direction and locality.
        case place
    }

    @inlinable
    package var kind: Kind {
        switch self {
        case .time, .updated: return .timestamp
        case .latitude, .longitude, .depth, .mag, .nst, .gap, .dmin, .rms, .horizontalError, .depthError,
             .magError, .magNst, .felt, .cdi, .mmi, .tsunami, .sig, .tz:
            return .decimal
        case .magType, .net, .type, .status, .locationSource, .magSource, .alert, .sources, .types:
            return .category
        case .id, .url, .detail, .code, .ids, .title:
            return .text
        case .place: return .place
        }
    }

    /// The USGS field name (CSV header and GeoJSON property).
    public var name: String { Column.names[rawValue] }

    private static let names = [
        "time", "latitude", "longitude", "depth", "mag", "magType", "nst", "gap", "dmin", "rms", "net", "id", "updated",
        "place", "type", "horizontalError", "depthError", "magError", "magNst", "status", "locationSource", "magSource",
        "felt", "cdi", "mmi", "alert", "tsunami", "sig", "tz", "url", "detail", "code", "ids", "sources", "types", "title",
    ]
    public var description: String { name }

    /// The name of the ``Quake`` property that holds this column (`magnitude` for `mag`).
    public var propertyName: String { self == .mag ? "magnitude" : name }

    /// Looks a column up by its USGS field name.
    /// The column named `name` (USGS spelling). A search of the 36 names, not a dictionary: a
    /// one-shot command names a few fields, and building a dictionary costs it more.
    public init?(name: String) {
        guard let k = Column.names.firstIndex(of: name), let c = Column(rawValue: k) else { return nil }
        self = c
    }

    /// The 22 columns of the current USGS summary CSV, in header order.
    package static let csvColumns: [Column] = [
        .time, .latitude, .longitude, .depth, .mag, .magType, .nst, .gap, .dmin, .rms, .net, .id, .updated, .place,
        .type, .horizontalError, .depthError, .magError, .magNst, .status, .locationSource, .magSource,
    ]

    /// Columns a feed row cannot be stored without.
    package static let required: [Column] = [.time, .latitude, .longitude, .id]

    /// Columns that hold integers in GeoJSON feeds (written without a decimal point).
    package var isIntegral: Bool {
        switch self {
        case .nst, .felt, .tsunami, .sig, .tz, .magNst: return true
        default: return false
        }
    }

    /// The columns of a GeoJSON feed's `properties` object, in USGS order.
    package static let geoJSONProperties: [Column] = [
        .mag, .place, .time, .updated, .tz, .url, .detail, .felt, .cdi, .mmi, .alert, .status, .tsunami, .sig,
        .net, .code, .ids, .sources, .types, .nst, .dmin, .rms, .gap, .magType, .type, .title,
    ]

    /// Columns the FDSN CSV has that the GeoJSON properties lack; quakes writes and reads them as extra properties.
    package static let extraGeoJSONProperties: [Column] = [
        .horizontalError, .depthError, .magError, .magNst, .locationSource, .magSource,
    ]

    /// A bit mask with one bit per column.
    package var bit: UInt64 { 1 << UInt64(rawValue) }

    package static let count = Column.allCases.count
    package static let allMask: UInt64 = (1 << UInt64(count)) - 1
}
