import ArgumentParser
import Foundation
import QuakeStore
import QuakeInterchange

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", _superCommandName: "quakes",
        abstract: "Read every block and check checksums and invariants.")

    @OptionGroup var store: StoreOptions

    func run() throws {
        let opened = try store.open()
        do {
            let report = try opened.verify()
            print("ok: \(report.partitions) partitions, \(report.rows) rows, \(report.blocks) blocks verified")
        } catch {
            printError("verify failed: \(error)")
            throw ExitCode(1)
        }
    }
}
