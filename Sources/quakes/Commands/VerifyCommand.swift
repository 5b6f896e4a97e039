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
        let s = try store.open()
        do {
            let r = try s.verify()
            print("ok: \(r.partitions) partitions, \(r.rows) rows, \(r.blocks) blocks verified")
        } catch {
            printError("verify failed: \(error)")
            throw ExitCode(1)
        }
    }
}
