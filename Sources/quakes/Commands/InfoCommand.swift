import QuakeSupport
import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange
import QuakeSync

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", _superCommandName: "quakes",
        abstract: "Show partitions, rows, time span and bytes per column.")

    @OptionGroup var store: StoreOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let opened = try store.open()
        let info = try opened.info()
        let cursors = try opened.syncCursors()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(InfoDocument(info: info, cursors: cursors)), as: UTF8.self))
            return
        }
        print("store        \(info.path)")
        print("partitioning \(info.partitioning) (\(info.partitions) partitions, generation \(info.generation))")
        print("rows         \(info.rows.grouped)")
        print("time span    \(info.firstTime ?? "-") .. \(info.lastTime ?? "-")")
        print("format       v\(info.format)")
        print("on disk      \(info.diskBytes.grouped) bytes (directories, granule and place indexes \(info.indexBytes.grouped), "
              + "id index \(info.idIndexBytes.grouped), catalog \(info.catalogBytes.grouped), "
              + "magnitude projection \(info.projectionBytes.grouped))")
        if let delta = info.catalogDeltaFile {
            print("catalog      " + Self.catalogDelta(file: delta, partitions: info.catalogDeltaPartitions))
        }
        print("place index  \(info.placeIndexBytes.grouped) bytes")
        print("aggregates   \(info.aggregateBytes.grouped) bytes")
        print("projection   " + Self.projection(info))
        print("history      \(info.historyTransactions.grouped) transactions, \(info.historyBytes.grouped) bytes "
            + "(complete after generation \(info.historyCompleteAfter); 'quakes history')")
        let tombstones = opened.manifest.tombstones
        if tombstones > 0 {
            print("tombstones   \(tombstones.grouped) (events their source deleted; --include-deleted shows them)")
        }
        for cursor in cursors { print(Self.describe(cursor)) }
        print("")
        print("column".padding(toLength: 16, withPad: " ", startingAt: 0) + "disk bytes".leftPad(14) + "  codecs")
        for column in info.columns {
            print(column.column.padding(toLength: 16, withPad: " ", startingAt: 0)
                + column.diskBytes.grouped.leftPad(14) + "  " + column.codecs.joined(separator: ","))
        }
    }
}

extension InfoCommand {
    /// The catalog delta waiting for `compact`, or a word that it or its catalog reads damaged (a
    /// delta lists at least one partition).
    static func catalogDelta(file: String, partitions: Int) -> String {
        switch partitions {
        case 0: "a delta, \(file), that reads damaged with its catalog ('quakes verify' names the file)"
        case 1: "a delta over 1 partition, \(file) ('quakes compact' folds it in)"
        default: "a delta over \(partitions) partitions, \(file) ('quakes compact' folds it in)"
        }
    }

    /// One sync source's cursor on one line.
    static func describe(_ c: SyncCursorInfo) -> String {
        func t(_ v: Int64?) -> String { v.map { Timestamp.string($0) } ?? "-" }
        var line = "sync         \(c.kind) \(c.source)" + (c.filter.isEmpty ? "" : " [\(c.filter)]")
        if let (through, end) = c.firstSyncThrough {
            line += ": first sync through \(t(through)) of \(t(end))"
        } else if c.kind == "fdsn" {
            line += ": next updatedafter \(t(c.since))"
        }
        line += ", newest update \(t(c.maxUpdated)), last sync \(t(c.lastSync)), \(c.events.grouped) events"
        if let etag = c.etag { line += ", ETag \(etag)" }
        if let lastModified = c.lastModified { line += ", Last-Modified \(lastModified)" }
        return line
    }
}

extension String {
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}

extension InfoCommand {
    /// The projection's line: its rows, threshold, bytes and file, or `none`; with the `repair`
    /// command when the store should have one and its file is gone or it has none.
    static func projection(_ info: StoreInfo) -> String {
        guard let threshold = info.projectionThreshold else {
            let hint = " (the store is large enough for one: 'quakes repair' builds it)"
            return "none" + (info.projectionMissing ? hint : "")
        }
        let file = info.projectionFile.map {
            info.projectionMissing ? " (\($0) is missing: 'quakes repair' builds it)" : " (\($0))"
        } ?? ""
        return "\(info.projectionRows.grouped) rows of magnitude \(threshold) or more, "
            + "\(info.projectionBytes.grouped) bytes" + file
    }
}
