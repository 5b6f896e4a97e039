/// The service's `application.wadl`: every parameter `query` and `count` take. ObsPy reads it
/// and sends only the parameters it lists.
enum FDSNWadl {
    /// Each parameter with its XML Schema type.
    static let parameters: [(name: String, type: String)] = [
        ("starttime", "xs:dateTime"), ("start", "xs:dateTime"), ("endtime", "xs:dateTime"), ("end", "xs:dateTime"),
        ("minlatitude", "xs:double"), ("minlat", "xs:double"), ("maxlatitude", "xs:double"), ("maxlat", "xs:double"),
        ("minlongitude", "xs:double"), ("minlon", "xs:double"), ("maxlongitude", "xs:double"),
        ("maxlon", "xs:double"), ("latitude", "xs:double"), ("lat", "xs:double"), ("longitude", "xs:double"),
        ("lon", "xs:double"), ("minradius", "xs:double"), ("maxradius", "xs:double"),
        ("minradiuskm", "xs:double"), ("maxradiuskm", "xs:double"), ("mindepth", "xs:double"),
        ("maxdepth", "xs:double"), ("minmagnitude", "xs:double"), ("minmag", "xs:double"),
        ("maxmagnitude", "xs:double"), ("maxmag", "xs:double"), ("magnitudetype", "xs:string"),
        ("magtype", "xs:string"), ("eventtype", "xs:string"), ("includeallorigins", "xs:boolean"),
        ("includeallmagnitudes", "xs:boolean"), ("includearrivals", "xs:boolean"), ("eventid", "xs:string"),
        ("limit", "xs:int"), ("offset", "xs:int"), ("orderby", "xs:string"), ("catalog", "xs:string"),
        ("contributor", "xs:string"), ("updatedafter", "xs:dateTime"), ("format", "xs:string"),
        ("nodata", "xs:int"), ("callback", "xs:string"), ("jsonerror", "xs:boolean"), ("reviewstatus", "xs:string"),
        ("placecontains", "xs:string"), ("includedeleted", "xs:string"),
    ]

    static let options: [String: [String]] = [
        "orderby": ["time", "time-asc", "magnitude", "magnitude-asc"],
        "format": ["xml", "quakeml", "geojson", "csv", "text", "kml"],
        "nodata": ["204", "404"],
        "reviewstatus": ["all", "automatic", "reviewed"],
        "includedeleted": ["false", "true", "only"],
    ]

    static let defaults: [String: String] = [
        "orderby": "time", "format": "xml", "nodata": "204", "includeallorigins": "false",
        "includeallmagnitudes": "false", "includearrivals": "false", "offset": "1", "minradius": "0",
        "maxradius": "180", "jsonerror": "false", "reviewstatus": "all", "includedeleted": "false",
    ]

    static func document(base: String) -> String {
        var params = ""
        for (name, type) in parameters {
            let defaultValue = defaults[name].map { " default=\"\($0)\"" } ?? ""
            if let opts = options[name] {
                params += "        <param name=\"\(name)\" style=\"query\" type=\"\(type)\"\(defaultValue)>\n"
                for o in opts { params += "          <option value=\"\(o)\"/>\n" }
                params += "        </param>\n"
            } else {
                params += "        <param name=\"\(name)\" style=\"query\" type=\"\(type)\"\(defaultValue)/>\n"
            }
        }
        func resource(_ path: String, _ mediaTypes: [String]) -> String {
            let reps = mediaTypes.map { "        <representation mediaType=\"\($0)\"/>\n" }.joined()
            return """
              <resource path="\(path)">
                <method name="GET" id="\(path)">
                  <request>
            \(params)      </request>
                  <response status="200">
            \(reps)      </response>
                  <response status="204 400 404 413 503">
                    <representation mediaType="text/plain"/>
                  </response>
                </method>
              </resource>

            """
        }
        func simple(_ path: String, _ mediaType: String) -> String {
            """
              <resource path="\(path)">
                <method name="GET">
                  <response><representation mediaType="\(mediaType)"/></response>
                </method>
              </resource>

            """
        }
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <application xmlns="http://wadl.dev.java.net/2009/02" xmlns:xs="http://www.w3.org/2001/XMLSchema">
          <resources base="\(base)\(FDSNService.root)">

        """
            + resource("query", ["application/xml", "application/json", "text/csv", "text/plain",
                                  "application/vnd.google-earth.kml+xml"])
            + resource("count", ["text/plain", "application/json"])
            + simple("version", "text/plain") + simple("application.wadl", "application/xml")
            + simple("catalogs", "application/xml") + simple("contributors", "application/xml")
            + "  </resources>\n</application>\n"
    }
}
