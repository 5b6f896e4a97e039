import ArgumentParser
import QuakeFormat
import QuakeStore
import QuakeInterchange

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", _superCommandName: "quakes",
        abstract: "Convert a format v1 store to format v2 in place (crash-safe, like a load).")

    @OptionGroup var store: StoreOptions

    func run() throws {
        let r = try Store.migrate(path: store.path) { key in
            if stderrIsTerminal { printError("migrating \(key)") }
        }
        print("migrated \(store.path): \(r.partitions) partitions, \(r.rows) rows, now format v\(Manifest.storeFormat)")
    }
}
