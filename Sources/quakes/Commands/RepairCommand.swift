import ArgumentParser
import QuakeFormat
import QuakeStore

struct RepairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair", _superCommandName: "quakes",
        abstract: "Rebuild a lost or damaged manifest from the newest complete generation of store files.",
        discussion: """
            Every store file carries its generation in its name, and a commit writes all of a \
            generation's files before it switches the manifest. repair takes, per partition and \
            id bucket, the newest file of each generation from the newest down, and keeps the first \
            generation whose files pass their checksums and whose id index and partitions agree \
            row for row. It commits that manifest atomically and verifies the store. A damaged \
            manifest is kept as manifest.qkm.damaged. A sound manifest is left alone.
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var wait: WaitOptions

    func run() throws {
        let interrupt = Interrupt.install()
        defer { interrupt.uninstall() }
        print(try Store.repair(path: store.path, lockWait: wait.lockWait, cancelled: { interrupt.fired }))
    }
}
