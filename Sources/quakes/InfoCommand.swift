import ArgumentParser
import Foundation
import QuakeStore

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "info", abstract: "Show partitions, rows, time span and bytes per column.")

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
        print("on disk      \(info.diskBytes) bytes (encoded \(info.rawBytes), ratio \(String(format: "%.2f", info.diskBytes > 0 ? Double(info.rawBytes) / Double(info.diskBytes) : 0)))")
        print("")
        print("column".padding(toLength: 16, withPad: " ", startingAt: 0) + "disk bytes".leftPad(14) + "encoded bytes".leftPad(15) + "ratio".leftPad(8))
        for c in info.columns {
            print(c.column.padding(toLength: 16, withPad: " ", startingAt: 0) + "\(c.diskBytes)".leftPad(14) + "\(c.rawBytes)".leftPad(15)
                  + String(format: "%.2f", c.ratio).leftPad(8))
        }
    }
}

extension String {
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
