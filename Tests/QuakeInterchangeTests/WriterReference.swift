import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import QuakeFormat
import QuakeGenerator
@testable import QuakeInterchange
@testable import QuakeStore
@testable import QuakeTestSupport

/// The naive side of the writer tests: stores to write from, their rows as `Quake` values by id,
/// and a field of written text judged against the stored value with plain Foundation parsing.
enum WriterReference {
    /// A store and its rows, each as the `Quake` the store returns, by id.
    struct Sample {
        let store: Store
        let batch: RowBatch
        let quakes: [String: Quake]
    }

    /// A store of generated events (QuakeGenerator's USGS-like feed: quoted places, nulls, ...).
    static func generated(rows: Int = 2500, seed: UInt64 = 17) throws -> Sample {
        let directory = TestSupport.tempDir("writer-gen-\(UUID().uuidString)")
        var options = GeneratorOptions(rows: rows)
        options.firstYear = 2023
        options.lastYear = 2024
        options.rowsPerFile = rows
        options.seed = seed
        _ = try FeedGenerator.generate(options, into: directory)
        return try sample([directory])
    }

    /// A store of one real USGS feed of ../shared/usgs; nil when the file is missing.
    static func real(_ name: String) throws -> Sample? {
        guard let path = TestSupport.usgs(name), FileManager.default.fileExists(atPath: path) else { return nil }
        return try sample([path])
    }

    static func sample(_ paths: [String]) throws -> Sample {
        let (store, _, _) = try TestSupport.load(paths)
        let batch = try TestSupport.allRows(store)
        var quakes: [String: Quake] = [:]
        for row in 0..<batch.count {
            let quake = Quake(batch: batch, row: row)
            quakes[quake.id] = quake
        }
        return Sample(store: store, batch: batch, quakes: quakes)
    }

    /// Whether `text`, one written field of `column`, says the stored value `quake` holds: a
    /// time as ISO 8601 (with or without its `Z`), a number by `Double(_:)`, text as it is. An
    /// empty or missing field is a null.
    static func says(_ text: String?, _ column: Column, of quake: Quake) -> Bool {
        switch Naive.value(quake, column) {
        case .null:
            return text == nil || text == ""
        case .text(let expected):
            return text == expected
        case .number(let expected):
            guard let text, !text.isEmpty else { return false }
            if column.kind == .timestamp {
                let zoned = text.hasSuffix("Z") ? text : text + "Z"
                return Timestamp.parse(zoned).map { Double($0) } == expected
            }
            return Double(text) == expected
        }
    }

    /// Whether `value`, a property JSONSerialization parsed, is the stored value of `column`:
    /// times as integer milliseconds, numbers as numbers, text as strings, nulls as null.
    static func says(json value: Any?, _ column: Column, of quake: Quake) -> Bool {
        switch Naive.value(quake, column) {
        case .null:
            return value == nil || value is NSNull
        case .text(let expected):
            return value as? String == expected
        case .number(let expected):
            guard let number = value as? NSNumber, !(value is String) else { return false }
            return number.doubleValue == expected
        }
    }

    /// The first few fields of `quake` that `judge` finds written wrong, for a failure message.
    static func wrong(_ quake: Quake, _ columns: [Column], _ judge: (Column) -> Bool) -> [String] {
        columns.filter { !judge($0) }.prefix(3).map { "\(quake.id) \($0.name)" }
    }
}

/// The events of a QuakeML document, as XMLParser reads them: per event its ids and the values
/// of its preferred origin and magnitude.
final class QuakeMLEvents: NSObject, XMLParserDelegate {
    struct Event {
        var publicID = ""
        var eventid = ""
        var values: [String: String] = [:]
    }

    private(set) var events: [Event] = []
    private var path: [String] = []
    private var text = ""

    /// Parses `bytes`; nil when XMLParser refuses them.
    static func parse(_ bytes: [UInt8]) -> [Event]? {
        let parser = XMLParser(data: Data(bytes))
        let reader = QuakeMLEvents()
        parser.delegate = reader
        return parser.parse() ? reader.events : nil
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        path.append(elementName)
        text = ""
        if elementName == "event" {
            events.append(Event(publicID: attributeDict["publicID"] ?? "",
                                eventid: attributeDict["catalog:eventid"] ?? ""))
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?) {
        // the element's path below its event: "origin/time/value", "magnitude/mag/value", ...
        if let start = path.lastIndex(of: "event"), start + 1 < path.count, !events.isEmpty {
            let key = path[(start + 1)...].joined(separator: "/")
            events[events.count - 1].values[key] = text
        }
        path.removeLast()
        text = ""
    }
}
