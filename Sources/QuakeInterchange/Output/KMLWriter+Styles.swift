import QuakeFormat

/// The shared styles of a KML document: one per magnitude class and depth class, defined once at
/// the top and named by each placemark's `styleUrl`, the way USGS's KML feed draws events
/// colored by depth (its service's `kmlcolorby=depth`, `KMLFeed.class.php` in
/// usgs/earthquake-event-ws): a tinted dot whose size grows with the magnitude's whole part
/// (0.2 at M0-1 to 2.5 at M10), coloured by depth in km (orange to 35, yellow to 70, green to
/// 150, blue to 300, purple to 500, red deeper). USGS writes that style inline in every
/// placemark; here 66 shared styles carry it. An event without magnitude gets the smallest
/// dot and one without depth the shallow colour, as USGS's feed gives them.
///
/// Depth rather than USGS's default, age: age is relative to the moment of writing, so the same
/// query would be coloured differently each time; depth is a property of the event.
extension KMLWriter {
    /// Icon scale by the magnitude's whole part, 0 to 10 (USGS's table).
    package static let magnitudeScales = ["0.2", "0.2", "0.3", "0.4", "0.5", "0.6", "0.8", "1.1", "1.5", "2.0", "2.5"]

    /// Upper bounds (km, inclusive) of the depth classes; deeper than the last is the last class.
    package static let depthBounds: [Double] = [35, 70, 150, 300, 500]

    /// Colour of each depth class, KML's `aabbggrr` (USGS's values): orange, yellow, green, blue,
    /// purple, red.
    package static let depthColors = ["dd009dfe", "dd03fffb", "dd00ff00", "ddfd0004", "ddc424a0", "dd0000fc"]

    /// Names of the depth classes, as they appear in style ids.
    package static let depthNames = ["d0-35", "d35-70", "d70-150", "d150-300", "d300-500", "d500-"]

    /// Google Earth's standard white shaded dot, tinted by each style's colour.
    package static let icon = "https://maps.google.com/mapfiles/kml/shapes/shaded_dot.png"

    /// The id of the style for magnitude class `m` (0...10) and depth class `d` (0...5).
    package static func styleID(magnitudeClass m: Int, depthClass d: Int) -> String { "m\(m)_\(depthNames[d])" }

    /// The magnitude class of a stored magnitude: its whole part, 0 to 10 (null and negatives 0).
    @inline(__always)
    package static func magnitudeClass(_ mag: Int64) -> Int {
        guard mag != RowBatch.null else { return 0 }
        let magnitude = ScaledDecimal.double(mag)
        return magnitude >= 10 ? 10 : magnitude >= 1 ? Int(magnitude) : 0
    }

    /// The depth class of a stored depth (null: the shallowest).
    @inline(__always)
    package static func depthClass(_ depth: Int64) -> Int {
        guard depth != RowBatch.null else { return 0 }
        let km = ScaledDecimal.double(depth)
        var band = 0
        while band < depthBounds.count && !(km <= depthBounds[band]) { band += 1 }
        return band
    }

    @inline(__always)
    static func styleIndex(mag: Int64, depth: Int64) -> Int {
        magnitudeClass(mag) * depthNames.count + depthClass(depth)
    }

    /// `<styleUrl>#ID</styleUrl>` for each style, in ``styleIndex(mag:depth:)`` order.
    static let styleURLs: [[UInt8]] = (0..<magnitudeScales.count).flatMap { m in
        (0..<depthNames.count).map { d in
            Array("<styleUrl>#\(styleID(magnitudeClass: m, depthClass: d))</styleUrl>".utf8)
        }
    }

    /// The document's style elements. Labels are hidden (thousands of names would cover the map;
    /// the Places panel and the balloon show them), and the balloon is the description alone.
    static let styles: String = {
        var out = ""
        for m in magnitudeScales.indices {
            for d in depthNames.indices {
                out += "<Style id=\"\(styleID(magnitudeClass: m, depthClass: d))\"><IconStyle>"
                    + "<color>\(depthColors[d])</color><scale>\(magnitudeScales[m])</scale>"
                    + "<Icon><href>\(icon)</href></Icon></IconStyle><LabelStyle><scale>0</scale></LabelStyle>"
                    + "<BalloonStyle><text>$[description]</text></BalloonStyle></Style>\n"
            }
        }
        return out
    }()

    /// What the document's description says of the styles.
    static let legend = "Icon size grows with magnitude; colour by depth: orange to 35 km, yellow to 70, "
        + "green to 150, blue to 300, purple to 500, red deeper."
}
