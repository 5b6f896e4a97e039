import Foundation
import Synchronization
import QuakeStore
import QuakeFormat
import QuakeSupport
import QuakeInterchange
import QuakeGenerator

/// Temporary directories and the shared real USGS files for tests.
package enum TestSupport {
    /// The package root (three levels above this file's folder: Sources/QuakeTestSupport/Scratch).
    package static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Where the tests look for the real USGS feeds, whether or not anything is there: the folder
    /// `$QUAKES_USGS` names when it is set, else `../shared/usgs` beside the package.
    package static let usgsPath: String = {
        if let path = ProcessInfo.processInfo.environment["QUAKES_USGS"], !path.isEmpty {
            return URL(fileURLWithPath: path).standardizedFileURL.path
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/usgs").path
    }()

    /// The real USGS feeds, when their folder is there: `../shared/usgs` beside the package (a
    /// fresh clone does not have it), or the folder in the environment variable `QUAKES_USGS`,
    /// which replaces `../shared/usgs` wherever the tests locate it (here, `CLI.usgs` in
    /// quakesTests, and so every path a Swift test hands to a Python script).
    ///
    /// Every test that reads the feeds carries
    /// `.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)")`
    /// (`CLI.hasRealFeeds` in quakesTests) on its `@Test` or `@Suite`, so without them it is
    /// reported as skipped, never passed with nothing checked. To see that without moving folders:
    ///
    ///     QUAKES_USGS=/nonexistent swift test     # every such test reports skipped
    ///     QUAKES_USGS=/data/usgs swift test       # the feeds from another folder
    package static let usgsDirectory: URL? = {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: usgsPath, isDirectory: &isDirectory), isDirectory.boolValue
        else { return nil }
        return URL(fileURLWithPath: usgsPath, isDirectory: true)
    }()

    /// True when the real feeds' folder is there (see ``usgsDirectory``); tests that need it
    /// carry `.enabled(if: TestSupport.hasRealFeeds, ...)` and are skipped, out loud, when it is not.
    package static let hasRealFeeds = usgsDirectory != nil

    package static func usgs(_ name: String) -> String? { usgsDirectory?.appendingPathComponent(name).path }

    package static var usgsFiles: [String] {
        guard let directory = usgsDirectory else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".csv") || $0.hasSuffix(".geojson") }.sorted()
    }

    package static func tempDir(_ tag: String = #function) -> String {
        let safe = tag.filter { $0.isLetter || $0.isNumber }
        return TestScratch.folder("quakes-tests-\(safe)")
    }

    package static func write(_ text: String, to path: String) {
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    package static func write(_ bytes: [UInt8], to path: String) {
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }

    /// Loads `paths` into a fresh store and returns it with the summary and rejects.
    package static func load(_ paths: [String], into store: String? = nil, strict: Bool = false,
                             partitioning: Partitioning = .month) throws
        -> (Store, LoadSummary, [Reject]) {
        let opened = try Store.openOrCreate(path: store ?? tempDir() + "/store", partitioning: partitioning)
        let rejects = RejectLog()
        var options = LoadOptions(strict: strict)
        options.onReject = { rejects.add($0) }
        let summary = try opened.load(paths, options: options)
        return (opened, summary, rejects.all)
    }

    /// Every stored row, all columns, partition by partition.
    package static func allRows(_ s: Store) throws -> RowBatch {
        var rows = RowBatch()
        for entry in s.manifest.partitions { rows.append(contentsOf: try s.reader(entry).readAll()) }
        return rows
    }

    /// Exports the store as text.
    package static func export(_ s: Store, _ f: FeedWriter.Format) throws -> String {
        let path = tempDir() + "/export." + f.rawValue
        let sink = try OutputSink(path: path)
        try s.export(format: f, to: sink)
        try sink.finish()
        // the GeoJSON envelope stamps the export time; the rest must match byte for byte
        return try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: "\"generated\":[0-9]+", with: "\"generated\":0", options: .regularExpression)
    }

    package static let header22 = "time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,"
        + "place,type,horizontalError,depthError,magError,magNst,status,locationSource,magSource"
}

/// The rejects a load reports, from whichever thread reports them.
package final class RejectLog: Sendable {
    private let items = Mutex<[Reject]>([])
    package init() {}
    package func add(_ r: Reject) { items.locked { $0.append(r) } }
    package var all: [Reject] { items.locked { $0 } }
}

/// A naive CSV parser (RFC 4180) used as the reference for the hand-written reader.
package enum NaiveCSV {
    package static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var field = ""
        var row: [String] = []
        var inQuotes = false
        var chars = Array(text.replacingOccurrences(of: "\r\n", with: "\n"))
        if chars.last != "\n" { chars.append("\n") }
        var index = 0
        while index < chars.count {
            let char = chars[index]
            if inQuotes {
                if char == "\"" {
                    if index + 1 < chars.count && chars[index + 1] == "\"" {
                        field.append("\"")
                        index += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    field.append(char)
                }
            } else if char == "\"" {
                inQuotes = true
            } else if char == "," {
                row.append(field)
                field = ""
            } else if char == "\n" {
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            } else {
                field.append(char)
            }
            index += 1
        }
        return rows.filter { $0 != [""] }
    }
}
