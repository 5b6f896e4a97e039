import Foundation

/// One earthquake event with every field of the USGS summary feeds.
///
/// Fields a feed left empty are nil. `time` and `updated` are UTC; numbers are the values the
/// feed wrote. Use it with Foundation's `#Predicate<Quake>` and `SortDescriptor<Quake>` in a
/// ``FetchDescriptor``.
///
/// The properties are the USGS fields, named as USGS names them (``Column`` lists them), except
/// `mag`, which is ``magnitude``. Their meanings and units are those of the USGS ComCat
/// documentation of the summary feeds. The summary CSV carries ``id`` and the fields from
/// ``time`` to ``magSource``; ``felt``, ``cdi``, ``mmi``, ``alert``, ``tsunami``, ``sig``, ``tz``, ``url``,
/// ``detail``, ``code``, ``ids``, ``sources``, ``types`` and ``title`` come from GeoJSON feeds
/// only, so an event loaded from CSV has them nil.
///
/// A fetch with ``FetchDescriptor/propertiesToFetch`` fills only the properties it names, and
/// leaves the other optional ones nil.
public struct Quake: Sendable, Hashable, Identifiable, Codable {
    /// The USGS event id, e.g. `ci37260128`.
    ///
    /// The store's key: a load replaces the stored event with this id when its version is newer
    /// (a later ``updated``). It is the preferred id at USGS, the network code followed by the
    /// event's code at that network; ``ids`` lists the others.
    public var id: String
    /// Origin time of the event, UTC, kept to the millisecond (``timeMilliseconds``).
    public var time: Date
    /// Latitude of the epicentre in decimal degrees, -90...90; negative is south.
    public var latitude: Double
    /// Longitude of the epicentre in decimal degrees, -180...180; negative is west.
    public var longitude: Double
    /// Depth of the hypocentre in km, where the rupture begins. Shallow events can have a small
    /// negative depth (above the reference surface, sea level or the geoid).
    public var depth: Double?
    /// The preferred magnitude of the event (USGS's `mag`), usually -1...10, of the type
    /// ``magType`` names.
    public var magnitude: Double?
    /// The method or algorithm of the preferred magnitude: `ml` (local), `md` (duration), `mb`
    /// (body wave), `ms` (surface wave), `mw`, `mww`, `mwc`, `mwr` (moment), and others.
    public var magType: String?
    /// The number of seismic stations used to locate the event.
    public var nst: Int?
    /// The largest azimuthal gap between azimuthally adjacent stations, in degrees, 0...360. The
    /// smaller it is, the more reliable the horizontal position; above 180 the epicentre lies
    /// outside the stations that located it.
    public var gap: Double?
    /// Horizontal distance from the epicentre to the nearest station, in degrees (1° is about
    /// 111.2 km). The smaller it is, the more reliable the depth.
    public var dmin: Double?
    /// The root-mean-square travel-time residual of the location, in seconds, using all weights:
    /// how well the arrival times fit the solution. Smaller is a better fit.
    public var rms: Double?
    /// The network that is the preferred source of the event's information: `us`, `ci`, `nc`,
    /// `ak`, `hv`, `uw`, `nn`, `pr`, ...
    public var net: String?
    /// When the event was last updated at its source, UTC, to the millisecond. Of two versions
    /// of an event, a load keeps the one updated later.
    public var updated: Date?
    /// A description of the named geographic region near the event, e.g.
    /// `10 km NE of Pāhala, Hawaii`: a distance and direction from a place, or a Flinn-Engdahl
    /// region name. Stored in Unicode's composed form (NFC).
    public var place: String?
    /// The kind of seismic event: `earthquake`, `quarry blast`, `explosion`, `ice quake`,
    /// `other event`, ...
    public var type: String?
    /// Uncertainty of the reported epicentre, in km.
    public var horizontalError: Double?
    /// Uncertainty of the reported depth, in km.
    public var depthError: Double?
    /// The estimated standard error of the magnitude, in magnitude units.
    public var magError: Double?
    /// The number of seismic stations used to compute the magnitude.
    public var magNst: Int?
    /// Whether a person has reviewed the event: `automatic` or `reviewed`; `deleted` for an
    /// event its source deleted (a tombstone, which fetches leave out unless
    /// ``FetchDescriptor/includesDeleted`` is set).
    public var status: String?
    /// The network that originally authored the reported location.
    public var locationSource: String?
    /// The network that originally authored the reported magnitude.
    public var magSource: String?
    /// The number of felt reports submitted to the "Did You Feel It?" system. GeoJSON feeds only.
    public var felt: Int?
    /// The maximum reported intensity, computed by "Did You Feel It?", on the modified Mercalli
    /// scale as a decimal (I to XII as 1.0 to 12.0). GeoJSON feeds only.
    public var cdi: Double?
    /// The maximum estimated instrumental intensity, computed by ShakeMap, on the modified
    /// Mercalli scale as a decimal (I to XII as 1.0 to 12.0). GeoJSON feeds only.
    public var mmi: Double?
    /// The alert level of the PAGER earthquake impact scale: `green`, `yellow`, `orange` or `red`.
    /// GeoJSON feeds only.
    public var alert: String?
    /// 1 for a large event in an oceanic region, else 0. It does not say whether a tsunami
    /// happened or will happen. GeoJSON feeds only.
    public var tsunami: Int?
    /// How significant the event is, from 0 to about 1,000: larger is more significant. It weighs
    /// magnitude, maximum intensity, felt reports and estimated impact. GeoJSON feeds only.
    public var sig: Int?
    /// The time zone offset from UTC at the epicentre, in minutes (USGS no longer fills it).
    /// GeoJSON feeds only.
    public var tz: Int?
    /// The event's page on the USGS site. GeoJSON feeds only.
    public var url: String?
    /// The URL of the event's GeoJSON detail feed. GeoJSON feeds only.
    public var detail: String?
    /// The identifying code the preferred source (``net``) gave the event. GeoJSON feeds only.
    public var code: String?
    /// Every event id associated with the event, comma-separated with a comma at each end
    /// (`,ci15296281,us2013mqbd,`). GeoJSON feeds only.
    public var ids: String?
    /// The networks that contributed to the event, comma-separated with a comma at each end
    /// (`,us,nc,ci,`). GeoJSON feeds only.
    public var sources: String?
    /// The product types associated with the event, comma-separated with a comma at each end
    /// (`,dyfi,origin,phase-data,shakemap,`). GeoJSON feeds only.
    public var types: String?
    /// The event's title, `M 4.5 - 10 km NE of Pāhala, Hawaii`. A fetched event always has one:
    /// a store keeps only a title that does not follow from the magnitude, type and place, and
    /// makes USGS's from them for every other event (one loaded from CSV too).
    public var title: String?

    /// An event with its id, time and epicentre, and optionally its depth, magnitude and place;
    /// the other properties start nil, to be set afterwards.
    public init(id: String, time: Date, latitude: Double, longitude: Double, depth: Double? = nil,
                magnitude: Double? = nil, place: String? = nil) {
        self.id = id
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.depth = depth
        self.magnitude = magnitude
        self.place = place
    }

    /// ``time`` in milliseconds since 1970-01-01T00:00:00Z, rounded to the nearest millisecond,
    /// as the store keeps it.
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
            let value = b.ints[c.rawValue][i]
            return value == RowBatch.null ? nil : ScaledDecimal.double(value)
        }
        func int(_ c: Column) -> Int? { dbl(c).map { Int($0) } }
        func str(_ c: Column) -> String? { want(c) ? b.text[c.rawValue].string(i) : nil }
        self.init(id: b.text[Column.id.rawValue].string(i) ?? "",
                  time: Date(epochMilliseconds: b.ints[Column.time.rawValue][i]),
                  latitude: ScaledDecimal.double(b.ints[Column.latitude.rawValue][i]),
                  longitude: ScaledDecimal.double(b.ints[Column.longitude.rawValue][i]))
        depth = dbl(.depth)
        magnitude = dbl(.mag)
        magType = str(.magType)
        nst = int(.nst)
        gap = dbl(.gap)
        dmin = dbl(.dmin)
        rms = dbl(.rms)
        net = str(.net)
        let updatedValue = b.ints[Column.updated.rawValue][i]
        updated = want(.updated) && updatedValue != RowBatch.null ? Date(epochMilliseconds: updatedValue) : nil
        place = str(.place)
        type = str(.type)
        horizontalError = dbl(.horizontalError)
        depthError = dbl(.depthError)
        magError = dbl(.magError)
        magNst = int(.magNst)
        status = str(.status)
        locationSource = str(.locationSource)
        magSource = str(.magSource)
        felt = int(.felt)
        cdi = dbl(.cdi)
        mmi = dbl(.mmi)
        alert = str(.alert)
        tsunami = int(.tsunami)
        sig = int(.sig)
        tz = int(.tz)
        url = str(.url)
        detail = str(.detail)
        code = str(.code)
        ids = str(.ids)
        sources = str(.sources)
        types = str(.types)
        title = str(.title)
    }
}
