import Foundation
import Testing
import QuakeFormat
import QuakeGenerator
@testable import QuakeInterchange
@testable import QuakeStore
@testable import QuakeTestSupport

/// The history writer's CSV, JSON and NDJSON read back with NaiveCSV and JSONSerialization and
/// compared field by field with the transactions and changes the store returns, over loads of
/// overlapping generated snapshots (so events are inserted and updated).
@Suite struct HistoryWriterTests {
    /// A store of the loads of the first snapshot, the rest (which repeat some of its events,
    /// revised or not), then the first again (a load that changes nothing commits no transaction).
    static func loadedStore() throws -> Store {
        let directory = TestSupport.tempDir("history-writer-\(UUID().uuidString)")
        var options = GeneratorOptions(rows: 1500)
        options.firstYear = 2023
        options.lastYear = 2023
        options.rowsPerFile = 600
        options.overlap = 0.3
        options.seed = 23
        let files = try FeedGenerator.generate(options, into: directory).sorted()
        try #require(files.count >= 2)
        let store = try Store.openOrCreate(path: directory + "/store")
        try store.load([files[0]])
        try store.load(Array(files.dropFirst()))
        try store.load([files[0]])
        return store
    }

    /// The committed instant as ISO 8601 with milliseconds, by Foundation's formatter.
    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    @Test func theListInJSONAndCSVIsTheStoresTransactions() throws {
        let store = try Self.loadedStore()
        let transactions = try store.history()
        try #require(transactions.count >= 2)
        #expect(transactions.contains { $0.updatedCount > 0 } && transactions.allSatisfy { $0.insertedCount > 0 })

        let json = OutputSink(capturing: ())
        HistoryWriter(format: .json).writeList(transactions, to: json)
        json.flush()
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.captured)) as? [[String: Any]])
        #expect(objects.count == transactions.count)
        for (object, transaction) in zip(objects, transactions) {
            #expect(object["generation"] as? Int == transaction.generation)
            #expect(object["committed"] as? String == Self.iso(transaction.committed))
            #expect(object["files"] as? Int == transaction.files.count)
            #expect(object["inserted"] as? Int == transaction.insertedCount)
            #expect(object["updated"] as? Int == transaction.updatedCount)
            #expect(object["unchanged"] as? Int == transaction.unchangedCount)
            #expect(object["bytes"] as? Int == transaction.bytes)
            #expect(object["partitions"] as? [String] == transaction.partitions)
            #expect(object["paths"] as? [String] == transaction.files)
            #expect(object["token"] as? String == transaction.token.description)
        }

        let csv = OutputSink(capturing: ())
        HistoryWriter(format: .csv).writeList(transactions, to: csv)
        csv.flush()
        let lines = NaiveCSV.parse(String(decoding: csv.captured, as: UTF8.self))
        #expect(lines.first == HistoryWriter.listColumns)
        #expect(lines.count == transactions.count + 1)
        for (fields, transaction) in zip(lines.dropFirst(), transactions) {
            let expected = ["\(transaction.generation)", Self.iso(transaction.committed), "\(transaction.files.count)",
                            "\(transaction.insertedCount)", "\(transaction.updatedCount)",
                            "\(transaction.unchangedCount)", "\(transaction.bytes)",
                            transaction.partitions.joined(separator: ";"), transaction.files.joined(separator: ";")]
            #expect(fields == expected)
        }
    }

    /// Each transaction's events in NDJSON and CSV: one line per change `forEachChange` gives,
    /// and the inserted and updated ids (with their changed fields) those of the transaction.
    @Test func eachTransactionsEventsAreItsChanges() throws {
        let store = try Self.loadedStore()
        for transaction in try store.history() {
            var changes: [HistoryChange] = []
            try store.forEachChange(generation: transaction.generation) { changes.append($0) }
            let events = { (body: (HistoryChange) throws -> Void) throws in
                try store.forEachChange(generation: transaction.generation, body)
            }
            let ndjson = OutputSink(capturing: ())
            try HistoryWriter(format: .ndjson).writeTransaction(transaction, events: events, to: ndjson)
            ndjson.flush()
            let objects = try String(decoding: ndjson.captured, as: UTF8.self).split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
            #expect(objects.count == changes.count)
            for (object, change) in zip(objects, changes) {
                #expect(object["generation"] as? Int == transaction.generation)
                #expect(object["kind"] as? String == change.kind.rawValue)
                #expect(object["id"] as? String == change.id)
                #expect(object["partition"] as? String == change.partition)
                #expect(object["changed"] as? [String] == change.changedFields.map(\.name))
            }
            let inserted = objects.filter { $0["kind"] as? String == "inserted" }.compactMap { $0["id"] as? String }
            #expect(Set(inserted) == Set(transaction.inserted))
            var updated: [String: [String]] = [:]
            for object in objects where object["kind"] as? String == "updated" {
                updated[object["id"] as? String ?? ""] = object["changed"] as? [String]
            }
            let expectedUpdates = Dictionary(transaction.updated.map { ($0.id, $0.changedFields.map(\.name)) },
                                             uniquingKeysWith: { first, _ in first })
            #expect(updated == expectedUpdates)

            let csv = OutputSink(capturing: ())
            try HistoryWriter(format: .csv).writeTransaction(transaction, events: events, to: csv)
            csv.flush()
            let lines = NaiveCSV.parse(String(decoding: csv.captured, as: UTF8.self))
            #expect(lines.first == ["generation", "kind", "id", "partition", "changed"])
            #expect(lines.count == changes.count + 1)
            for (fields, change) in zip(lines.dropFirst(), changes) {
                let changed = change.changedFields.map(\.name).joined(separator: ";")
                #expect(fields == ["\(transaction.generation)", change.kind.rawValue, change.id, change.partition,
                                   changed])
            }
        }
    }
}
