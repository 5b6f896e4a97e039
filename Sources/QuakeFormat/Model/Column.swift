/// Every stored field of a USGS event, in storage order.
///
/// A column is named as USGS names the field in its summary feeds (the CSV header and the
/// GeoJSON property): ``name`` gives that spelling and ``init(name:)`` reads it back. The
/// ``Quake`` property behind each column has the same name, except ``mag``, which is
/// ``Quake/magnitude``. Columns name the fields of aggregates (``Metric/avg(_:)``,
/// ``GroupBy/value(_:)``) and of ``HistoryUpdate/changedFields``.
///
/// The first 22 columns are those of the summary CSV, in its header order; the others come
/// from GeoJSON feeds only. The raw value is the column's ordinal in storage and its file name
/// stem on disk.
public enum Column: Int, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    /// Origin time of the event, UTC, to the millisecond (``Quake/time``).
    case time
    /// Latitude of the epicentre in decimal degrees, -90...90, negative south (``Quake/latitude``).
    case latitude
    /// Longitude of the epicentre in decimal degrees, -180...180, negative west (``Quake/longitude``).
    case longitude
    /// Depth of the hypocentre in km (``Quake/depth``).
    case depth
    /// The preferred magnitude (``Quake/magnitude``).
    case mag
    /// The method or algorithm of the preferred magnitude: `ml`, `md`, `mb`, `mww`, ... (``Quake/magType``).
    case magType
    /// Seismic stations used to locate the event (``Quake/nst``).
    case nst
    /// Largest azimuthal gap between azimuthally adjacent stations, in degrees (``Quake/gap``).
    case gap
    /// Horizontal distance from the epicentre to the nearest station, in degrees (``Quake/dmin``).
    case dmin
    /// Root-mean-square travel-time residual of the location, in seconds (``Quake/rms``).
    case rms
    /// The network that is the preferred source of the event: `us`, `ci`, `ak`, ... (``Quake/net``).
    case net
    /// The event id, the store's key (``Quake/id``).
    case id
    /// When the event was last updated at its source, UTC (``Quake/updated``).
    case updated
    /// A description of the region near the event (``Quake/place``).
    case place
    /// The kind of seismic event: `earthquake`, `quarry blast`, `explosion`, ... (``Quake/type``).
    case type
    /// Uncertainty of the epicentre, in km (``Quake/horizontalError``).
    case horizontalError
    /// Uncertainty of the depth, in km (``Quake/depthError``).
    case depthError
    /// Estimated standard error of the magnitude (``Quake/magError``).
    case magError
    /// Seismic stations used to compute the magnitude (``Quake/magNst``).
    case magNst
    /// Whether a person has reviewed the event: `automatic`, `reviewed`, or `deleted` (``Quake/status``).
    case status
    /// The network that authored the location (``Quake/locationSource``).
    case locationSource
    /// The network that authored the magnitude (``Quake/magSource``).
    case magSource
    /// Felt reports submitted to "Did You Feel It?" (``Quake/felt``). GeoJSON only.
    case felt
    /// Maximum reported intensity, from "Did You Feel It?" (``Quake/cdi``). GeoJSON only.
    case cdi
    /// Maximum estimated instrumental intensity, from ShakeMap (``Quake/mmi``). GeoJSON only.
    case mmi
    /// PAGER alert level: `green`, `yellow`, `orange` or `red` (``Quake/alert``). GeoJSON only.
    case alert
    /// 1 for a large event in an oceanic region, else 0 (``Quake/tsunami``). GeoJSON only.
    case tsunami
    /// Significance, 0 to about 1,000 (``Quake/sig``). GeoJSON only.
    case sig
    /// Time zone offset from UTC at the epicentre, in minutes (``Quake/tz``). GeoJSON only.
    case tz
    /// The event's page on the USGS site (``Quake/url``). GeoJSON only.
    case url
    /// The event's GeoJSON detail feed (``Quake/detail``). GeoJSON only.
    case detail
    /// The event's code at its preferred source (``Quake/code``). GeoJSON only.
    case code
    /// Every id associated with the event, comma-separated (``Quake/ids``). GeoJSON only.
    case ids
    /// Every network that contributed to the event, comma-separated (``Quake/sources``). GeoJSON only.
    case sources
    /// Product types associated with the event, comma-separated (``Quake/types``). GeoJSON only.
    case types
    /// The event's title, `M 4.5 - 10 km NE of Pāhala, Hawaii` (``Quake/title``). GeoJSON only.
    case title

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
        "felt", "cdi", "mmi", "alert", "tsunami", "sig", "tz", "url", "detail", "code", "ids", "sources", "types",
        "title",
    ]
    /// The USGS field name, as ``name``.
    public var description: String { name }

    /// The name of the ``Quake`` property that holds this column (`magnitude` for `mag`).
    public var propertyName: String { self == .mag ? "magnitude" : name }

    /// The column whose USGS field name is `name` (`"mag"`, `"magType"`, `"horizontalError"`),
    /// or nil when no column has that name. Names are case-sensitive.
    // A search of the 36 names, not a dictionary: a one-shot command names a few fields, and
    // building a dictionary costs it more.
    public init?(name: String) {
        guard let index = Column.names.firstIndex(of: name), let column = Column(rawValue: index) else { return nil }
        self = column
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
