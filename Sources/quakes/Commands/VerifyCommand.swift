import ArgumentParser
import Foundation
import QuakeFormat
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
            let hint = Self.namesDerivedFile(error, store: opened.path)
                ? "; 'quakes repair --store \(opened.path)' rebuilds it from the partitions" : ""
            printError("verify failed: \(error)" + hint)
            throw ExitCode(1)
        }
    }

    /// Whether `error` is about a file `repair` rebuilds from the partitions (the store catalog or
    /// the magnitude projection).
    static func namesDerivedFile(_ error: any Error, store: String) -> Bool {
        if let failure = error as? VerifyFailure {
            return ErrorMessage.derivedFileStore(store + "/" + failure.file) != nil
                || ErrorMessage.derivedFileStore(failure.underlying?.path) != nil
        }
        return ErrorMessage.derivedFileStore((error as? QuakeError)?.path) != nil
    }
}
