import ArgumentParser
import QuakeFormat
import QuakeStore
import QuakeInterchange

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", _superCommandName: "quakes",
        abstract: "Convert a format v1 store to format v2 in place (crash-safe, like a load).")

    @OptionGroup var store: StoreOptions
    @OptionGroup var wait: WaitOptions

    func run() throws {
        let interrupt = Interrupt.install()
        defer { interrupt.uninstall() }
        let migrated = try Store.migrate(path: store.path, lockWait: wait.lockWait,
                                         cancelled: { interrupt.fired }) { key in
            if stderrIsTerminal { printError("migrating \(key)") }
        }
        print("migrated \(store.path): \(migrated.partitions) partitions, \(migrated.rows) rows, "
            + "now format v\(Manifest.storeFormat)")
    }
}
