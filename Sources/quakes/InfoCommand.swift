import ArgumentParser
import Foundation
import QuakeStore
import QuakeFormat
import QuakeInterchange
import QuakeTestSupport

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", _superCommandName: "quakes",
        abstract: "Show partitions, rows, time span and bytes per column.")

    @OptionGroup var store: StoreOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let info = try store.open().info()
        if json {
            let e = JSONEncoder()
            e.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try e.encode(info), as: UTF8.self))
            return
        }
        print("store        \(info.path)")
        print("partitioning \(info.partitioning) (\(info.partitions) partitions, generation \(info.generation))")
        print("rows         \(info.rows)")
        print("time span    \(info.firstTime ?? "-") .. \(info.lastTime ?? "-")")
        print("format       v\(info.format)")
        print("on disk      \(info.diskBytes) bytes (directories, granule and place indexes \(info.indexBytes), "
              + "id index \(info.idIndexBytes), catalog \(info.catalogBytes), "
              + "magnitude projection \(info.projectionBytes))")
        print("place index  \(info.placeIndexBytes) bytes")
        print("aggregates   \(info.aggregateBytes) bytes")
        print("projection   " + (info.projectionThreshold.map {
            "\(info.projectionRows) rows of magnitude \($0) or more, \(info.projectionBytes) bytes"
        } ?? "none"))
        print("history      \(info.historyTransactions) transactions, \(info.historyBytes) bytes "
            + "(complete after generation \(info.historyCompleteAfter); 'quakes history')")
        print("")
        print("column".padding(toLength: 16, withPad: " ", startingAt: 0) + "disk bytes".leftPad(14) + "  codecs")
        for c in info.columns {
            print(c.column.padding(toLength: 16, withPad: " ", startingAt: 0) + "\(c.diskBytes)".leftPad(14) + "  " + c.codecs.joined(separator: ","))
        }
    }
}

extension String {
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
