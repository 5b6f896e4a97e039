import Foundation
import QuakeFormat
import QuakeStore

/// Random versions of random events, delivered in random shapes (CSV of 22 and of 15 columns,
/// GeoJSON, `Quake` values), the files they make, and the naive fold of the table in docs/Inputs.md that
/// a store must equal however the deliveries are grouped into writes.
package enum FoldScenario {
    /// One version of one event, as one source delivers it.
    package struct Delivery {
        package var quake: Quake
        package var shape: Shape

        package init(quake: Quake, shape: Shape) {
            self.quake = quake
            self.shape = shape
        }
    }

    package enum Shape: CaseIterable, Sendable {
        case csv22, csv15, geojson, value

        /// The fields a source of this shape carries.
        package var carried: Set<Column> {
            switch self {
            case .csv22: return Set(Column.allCases.prefix(22))
            case .csv15: return Set(Column.allCases.prefix(15))
            case .geojson: return FoldScenario.geojsonFields
            case .value: return Set(Column.allCases)
            }
        }
    }

    /// What a USGS GeoJSON feature carries: its properties, id and coordinates.
    package static let geojsonFields: Set<Column> = [
        .id, .time, .latitude, .longitude, .depth, .mag, .place, .updated, .tz, .url, .detail, .felt, .cdi, .mmi,
        .alert, .status, .tsunami, .sig, .net, .code, .ids, .sources, .types, .nst, .dmin, .rms, .gap, .magType,
        .type, .title,
    ]

    // MARK: generating

    /// Versions of `events` events, each version in one to three shapes.
    package static func deliveries(events: Int, using random: inout some RandomNumberGenerator) -> [Delivery] {
        var out: [Delivery] = []
        let base: Int64 = 1_704_067_200_000   // 2024-01-01
        for event in 0..<events {
            let versions = Int.random(in: 1...4, using: &random)
            var updated = base + Int64.random(in: 0...(40 * 86_400_000), using: &random)
            for _ in 0..<versions {
                updated += Int64.random(in: 1...(5 * 86_400_000), using: &random)
                let quake = randomQuake(id: "ev\(event)", updated: updated, using: &random)
                let shapes = Shape.allCases.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random))
                for (copy, shape) in shapes.enumerated() {
                    var delivered = quake
                    // copies of one version may disagree on text, as USGS's CSV and GeoJSON name places
                    if copy > 0 && Int.random(in: 0..<3, using: &random) == 0 {
                        let placeDigit = Int.random(in: 0..<9, using: &random)
                        let typeDigit = Int.random(in: 0..<9, using: &random)
                        delivered.place = Bool.random(using: &random) ? nil : "near \(placeDigit)"
                        delivered.magType = Bool.random(using: &random) ? nil : "m\(typeDigit)"
                    }
                    out.append(Delivery(quake: delivered, shape: shape))
                }
            }
        }
        return out
    }

    package static func randomQuake(id: String, updated: Int64,
                                    using random: inout some RandomNumberGenerator) -> Quake {
        func maybe<T>(_ value: T) -> T? { Int.random(in: 0..<4, using: &random) == 0 ? nil : value }
        func decimal(_ range: ClosedRange<Int>, _ scale: Double) -> Double {
            Double(Int.random(in: range, using: &random)) / scale
        }
        func word(_ stem: String) -> String { stem + String(Int.random(in: 0..<6, using: &random)) }
        // the time may move across a month boundary between versions, moving the event's partition
        let time = updated - Int64.random(in: 0...(20 * 86_400_000), using: &random)
        var quake = Quake(id: id, time: Date(epochMilliseconds: time), latitude: decimal(-9000...9000, 100),
                          longitude: decimal(-18000...18000, 100))
        quake.depth = maybe(decimal(0...7000, 100))
        quake.magnitude = maybe(decimal(-10...80, 10))
        quake.magType = maybe(word("m"))
        quake.nst = maybe(Int.random(in: 0...200, using: &random))
        quake.gap = maybe(decimal(0...3600, 10))
        quake.dmin = maybe(decimal(1...9999, 1000))
        quake.rms = maybe(decimal(1...999, 100))
        quake.net = maybe(word("n"))
        quake.updated = Date(epochMilliseconds: updated)
        quake.place = maybe("\(Int.random(in: 1...90, using: &random)) km N of \(word("Town")), CA")
        quake.type = maybe(Bool.random(using: &random) ? "earthquake" : "quarry blast")
        quake.horizontalError = maybe(decimal(1...999, 100))
        quake.depthError = maybe(decimal(1...999, 100))
        quake.magError = maybe(decimal(1...999, 1000))
        quake.magNst = maybe(Int.random(in: 0...50, using: &random))
        quake.status = maybe(["automatic", "reviewed", "deleted"][Int.random(in: 0...2, using: &random)])
        quake.locationSource = maybe(word("ls"))
        quake.magSource = maybe(word("ms"))
        quake.felt = maybe(Int.random(in: 0...500, using: &random))
        quake.cdi = maybe(decimal(0...90, 10))
        quake.mmi = maybe(decimal(0...900, 100))
        quake.alert = maybe(["green", "yellow", "red"][Int.random(in: 0...2, using: &random)])
        quake.tsunami = maybe(Int.random(in: 0...1, using: &random))
        quake.sig = maybe(Int.random(in: 0...1000, using: &random))
        quake.tz = maybe(Int.random(in: -720...720, using: &random))
        quake.url = maybe("https://example.test/\(id)/\(word("u"))")
        quake.detail = maybe("https://example.test/\(id)/\(word("d")).geojson")
        quake.code = maybe(word("c"))
        quake.ids = maybe(",\(id),\(word("x")),")
        quake.sources = maybe(",\(word("s")),")
        quake.types = maybe(",origin,\(word("t")),")
        quake.title = maybe("M \(Int.random(in: 1...7, using: &random)) - \(word("Somewhere"))")
        return quake
    }

    // MARK: writing the deliveries

    package static func number(_ value: Double?) -> String { value.map { String($0) } ?? "" }
    package static func number(_ value: Int?) -> String { value.map { String($0) } ?? "" }

    /// The CSV line of `q` in the 22-column layout (its first 15 columns for the older one).
    package static func csvLine(_ quake: Quake, columns: Int) -> String {
        let ms = { (date: Date) in Timestamp.string(Int64((date.timeIntervalSince1970 * 1000).rounded())) }
        let fields: [String] = [
            ms(quake.time), String(quake.latitude), String(quake.longitude), number(quake.depth),
            number(quake.magnitude),
            quake.magType ?? "", number(quake.nst), number(quake.gap), number(quake.dmin), number(quake.rms),
            quake.net ?? "", quake.id, quake.updated.map(ms) ?? "", quake.place.map { "\"\($0)\"" } ?? "",
            quake.type ?? "", number(quake.horizontalError), number(quake.depthError), number(quake.magError),
            number(quake.magNst), quake.status ?? "", quake.locationSource ?? "", quake.magSource ?? "",
        ]
        return fields.prefix(columns).joined(separator: ",")
    }

    /// Writes `deliveries` (none of them `.value`) as files, one per shape, in `folder`.
    package static func files(_ deliveries: [Delivery], in folder: String, tag: String) throws -> [String] {
        var paths: [String] = []
        let header22 = TestSupport.header22
        let header15 = header22.split(separator: ",").prefix(15).joined(separator: ",")
        for (shape, header, columns) in [(Shape.csv22, header22, 22), (.csv15, header15, 15)] {
            let lines = deliveries.filter { $0.shape == shape }.map { csvLine($0.quake, columns: columns) }
            guard !lines.isEmpty else { continue }
            let path = folder + "/\(tag)-\(shape).csv"
            TestSupport.write(([header] + lines).joined(separator: "\n") + "\n", to: path)
            paths.append(path)
        }
        for shape in [Shape.geojson, .value] {
            let features = deliveries.filter { $0.shape == shape }
            guard !features.isEmpty else { continue }
            var bytes = Array(#"{"type":"FeatureCollection","features":["#.utf8)
            for (index, delivery) in features.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes += try Store.feature(delivery.quake, index: index, carrying: shape.carried)
            }
            bytes += Array("]}\n".utf8)
            let path = folder + "/\(tag)-\(shape).geojson"
            TestSupport.write(bytes, to: path)
            paths.append(path)
        }
        return paths
    }

    package static var loadOptions: LoadOptions {
        var options = LoadOptions(strict: true)
        options.timeUnit = .milliseconds
        return options
    }

    /// Every stored event by id (tombstones included).
    package static func contents(_ store: Store) throws -> [String: Quake] {
        let rows = try TestSupport.allRows(store)
        var out: [String: Quake] = [:]
        for row in 0..<rows.count {
            let quake = Quake(batch: rows, row: row)
            out[quake.id] = quake
        }
        return out
    }

    // MARK: the naive fold

    /// Per event, per field, the value of the newest delivery that carried it; nil when none did.
    package static func naiveFold(_ deliveries: [Delivery]) -> [String: Quake] {
        var byEvent: [String: [Delivery]] = [:]
        for delivery in deliveries { byEvent[delivery.quake.id, default: []].append(delivery) }
        var out: [String: Quake] = [:]
        for (id, list) in byEvent {
            let newest = list.max { ($0.quake.updated ?? .distantPast) < ($1.quake.updated ?? .distantPast) }
            guard let newest else { continue }
            var folded = Quake(id: id, time: newest.quake.time, latitude: 0, longitude: 0)
            for column in Column.allCases where column != .id {
                let carriers = list.filter { $0.shape.carried.contains(column) }
                let newestUpdated = carriers.compactMap(\.quake.updated).max()
                let newest = carriers.filter { $0.quake.updated == newestUpdated }
                // copies of one version that disagree: a value over nil, then the greater text
                let source = newest.max { tieRank(column, $0.quake) < tieRank(column, $1.quake) }
                copy(column, from: source?.quake, into: &folded)
            }
            out[id] = folded
        }
        return out
    }

    /// How a copy of a version ranks on a tie, for the text fields the generator makes disagree.
    /// Nil ranks lowest ("" before any "+..."); values rank by their bytes (the text is ASCII).
    package static func tieRank(_ column: Column, _ quake: Quake) -> String {
        switch column {
        case .place: return quake.place.map { "+" + $0 } ?? ""
        case .magType: return quake.magType.map { "+" + $0 } ?? ""
        default: return ""
        }
    }

    /// Fields whose folded value comes from a version older than the event's newest: the cases
    /// a fold that forgot its provenance between writes got wrong.
    package static func filledFromOlder(_ deliveries: [Delivery]) -> Int {
        var byEvent: [String: [Delivery]] = [:]
        for delivery in deliveries { byEvent[delivery.quake.id, default: []].append(delivery) }
        var count = 0
        for list in byEvent.values {
            guard let newest = list.compactMap(\.quake.updated).max() else { continue }
            let newestCarry = list.filter { $0.quake.updated == newest }
                .reduce(Set<Column>()) { $0.union($1.shape.carried) }
            let allCarry = list.reduce(Set<Column>()) { $0.union($1.shape.carried) }
            count += allCarry.subtracting(newestCarry).count
        }
        return count
    }

    /// Sets field `column` of `target` to its value in `source` (nil: to nil).
    package static func copy(_ column: Column, from source: Quake?, into target: inout Quake) {
        switch column {
        case .id: break
        case .time: if let source { target.time = source.time }
        case .latitude: if let source { target.latitude = source.latitude }
        case .longitude: if let source { target.longitude = source.longitude }
        case .depth: target.depth = source?.depth
        case .mag: target.magnitude = source?.magnitude
        case .magType: target.magType = source?.magType
        case .nst: target.nst = source?.nst
        case .gap: target.gap = source?.gap
        case .dmin: target.dmin = source?.dmin
        case .rms: target.rms = source?.rms
        case .net: target.net = source?.net
        case .updated: target.updated = source?.updated
        case .place: target.place = source?.place
        case .type: target.type = source?.type
        case .horizontalError: target.horizontalError = source?.horizontalError
        case .depthError: target.depthError = source?.depthError
        case .magError: target.magError = source?.magError
        case .magNst: target.magNst = source?.magNst
        case .status: target.status = source?.status
        case .locationSource: target.locationSource = source?.locationSource
        case .magSource: target.magSource = source?.magSource
        case .felt: target.felt = source?.felt
        case .cdi: target.cdi = source?.cdi
        case .mmi: target.mmi = source?.mmi
        case .alert: target.alert = source?.alert
        case .tsunami: target.tsunami = source?.tsunami
        case .sig: target.sig = source?.sig
        case .tz: target.tz = source?.tz
        case .url: target.url = source?.url
        case .detail: target.detail = source?.detail
        case .code: target.code = source?.code
        case .ids: target.ids = source?.ids
        case .sources: target.sources = source?.sources
        case .types: target.types = source?.types
        case .title: target.title = source?.title
        }
    }

    /// The first differing field of each differing event, for the failure message.
    package static func differences(_ left: [String: Quake], _ right: [String: Quake]) -> [String] {
        var out: [String] = []
        for id in Set(left.keys).union(right.keys).sorted() where left[id] != right[id] {
            guard let leftQuake = left[id], let rightQuake = right[id] else {
                out.append("\(id): only in \(left[id] == nil ? "the second" : "the first")")
                continue
            }
            for column in Column.allCases {
                var onlyA = Quake(id: id, time: .distantPast, latitude: 0, longitude: 0)
                var onlyB = onlyA
                copy(column, from: leftQuake, into: &onlyA)
                copy(column, from: rightQuake, into: &onlyB)
                if onlyA != onlyB {
                    out.append("\(id) \(column): \(String(describing: onlyA)) vs \(String(describing: onlyB))")
                    break
                }
            }
        }
        return out
    }
}
