import QuakeFormat
import QuakeStore
import QuakeInterchange
/// A seismic network as the generator models it: where it records, its catalog's
/// completeness magnitude, the magnitude types it reports and the localities its places name.
package struct SeismicNetwork {
    package let code: String
    package let weight: Double
    package let latitude: Double
    package let longitude: Double
    package let spread: Double
    /// Completeness magnitude: the Gutenberg-Richter curve starts here.
    package let completeness: Double
    package let magTypes: [String]
    package let localities: [String]
    /// Decimal places the network writes for coordinates.
    package let coordinateScale: Int
    package let reportsStationCounts: Bool

    package static let all: [SeismicNetwork] = [
        .init(
            code: "ak", weight: 0.25, latitude: 61.5, longitude: -150, spread: 4, completeness: 0.6,
            magTypes: ["ml", "ml", "ml", "mb"],
            localities: [
                "Anchorage, Alaska", "Willow, Alaska", "Minto, Alaska", "Redoubt Volcano, Alaska",
                "Cantwell, Alaska", "Nikiski, Alaska", "Kaktovik, Alaska", "Sand Point, Alaska", "Healy, Alaska",
                "Talkeetna, Alaska",
            ],
            coordinateScale: 4, reportsStationCounts: false
        ),
        .init(
            code: "ci", weight: 0.15, latitude: 34.0, longitude: -117.0, spread: 1.5, completeness: 0.4,
            magTypes: ["ml", "ml", "ml", "mw"],
            localities: [
                "Ridgecrest, CA", "Ocotillo Wells, CA", "Borrego Springs, CA", "Anza, CA", "Big Bear City, CA",
                "Searles Valley, CA", "Cabazon, CA", "Aguanga, CA", "Trona, CA", "Coso Junction, CA",
            ],
            coordinateScale: 7, reportsStationCounts: true
        ),
        .init(
            code: "nc", weight: 0.15, latitude: 38.0, longitude: -122.0, spread: 1.5, completeness: 0.3,
            magTypes: ["md", "md", "md", "ml"],
            localities: [
                "The Geysers, CA", "Cobb, CA", "Alum Rock, CA", "San Lucas, CA", "Petrolia, CA", "Parkfield, CA",
                "Pinnacles, CA", "Mammoth Lakes, CA",
            ],
            coordinateScale: 7, reportsStationCounts: true
        ),
        .init(
            code: "hv", weight: 0.08, latitude: 19.4, longitude: -155.3, spread: 0.5, completeness: 1.0,
            magTypes: ["md", "ml", "md"],
            localities: [
                "Pāhala, Hawaii", "Volcano, Hawaii", "Nāʻālehu, Hawaii", "Leilani Estates, Hawaii",
                "Hōlualoa, Hawaii", "Waimea, Hawaii",
            ],
            coordinateScale: 7, reportsStationCounts: true
        ),
        .init(
            code: "nn", weight: 0.05, latitude: 38.5, longitude: -117.5, spread: 1.5, completeness: 0.5,
            magTypes: ["ml"],
            localities: [
                "Beatty, Nevada", "Dayton, Nevada", "Mina, Nevada", "Tonopah, Nevada", "Silver Springs, Nevada",
            ],
            coordinateScale: 4, reportsStationCounts: true
        ),
        .init(
            code: "uw", weight: 0.04, latitude: 46.5, longitude: -122, spread: 1.5, completeness: 0.5,
            magTypes: ["ml", "md"],
            localities: [
                "Seattle, Washington", "Mount St. Helens, Washington", "Port Townsend, Washington",
                "Ashford, Washington",
            ],
            coordinateScale: 7, reportsStationCounts: true
        ),
        .init(
            code: "us", weight: 0.14, latitude: 0, longitude: 0, spread: 0, completeness: 4.0,
            magTypes: ["mb", "mb", "mww", "mwr", "mb_lg"],
            localities: [
                "Iquique, Chile", "San Martín, Peru", "Nuevo León, Mexico", "Reykjavík, Iceland", "Ağrı, Turkey",
                "Kahramanmaraş, Türkiye", "Ōtaki, New Zealand", "Kōbe, Japan", "Ishinomaki, Japan",
                "Hualien City, Taiwan", "Sinabang, Indonesia", "Port-Vila, Vanuatu", "Neiafu, Tonga",
                "Tobelo, Indonesia", "Jurm, Afghanistan", "Mendi, Papua New Guinea", "Ndoi Island, Fiji",
                "Castro, Chile",
            ],
            coordinateScale: 4, reportsStationCounts: true
        ),
        .init(
            code: "pr", weight: 0.04, latitude: 18.0, longitude: -66.8, spread: 0.6, completeness: 1.8,
            magTypes: ["md"],
            localities: [
                "Maria Antonia, Puerto Rico", "Tallaboa, Puerto Rico", "Indios, Puerto Rico",
                "Guánica, Puerto Rico",
            ],
            coordinateScale: 4, reportsStationCounts: true
        ),
        .init(
            code: "tx", weight: 0.04, latitude: 31.6, longitude: -103.5, spread: 0.8, completeness: 1.2,
            magTypes: ["ml"],
            localities: [
                "Mentone, Texas", "Pecos, Texas", "Stanton, Texas", "Whites City, New Mexico",
            ],
            coordinateScale: 4, reportsStationCounts: true
        ),
        .init(
            code: "ok", weight: 0.03, latitude: 36.0, longitude: -97.5, spread: 0.7, completeness: 1.0,
            magTypes: ["ml", "mb_lg"],
            localities: [
                "Perry, Oklahoma", "Guthrie, Oklahoma", "Pawnee, Oklahoma",
            ],
            coordinateScale: 4, reportsStationCounts: true
        ),
        .init(
            code: "mb", weight: 0.015, latitude: 46.0, longitude: -112.0, spread: 1.2, completeness: 0.8,
            magTypes: ["ml"],
            localities: [
                "Lincoln, Montana", "West Yellowstone, Montana",
            ],
            coordinateScale: 4, reportsStationCounts: true
        ),
        .init(
            code: "uu", weight: 0.015, latitude: 40.5, longitude: -111.5, spread: 1.2, completeness: 0.8,
            magTypes: ["md", "ml"],
            localities: [
                "Magna, Utah", "Yellowstone National Park, Wyoming",
            ],
            coordinateScale: 4, reportsStationCounts: true
        ),
    ]

    /// Places of remote events, which USGS writes without the distance pattern.
    package static let regions = [
        "Fiji region", "south of the Kermadec Islands", "Mid-Atlantic Ridge", "central East Pacific Rise",
        "South Sandwich Islands region", "Owen Fracture Zone region",
    ]
}
