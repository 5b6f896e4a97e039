import ArgumentParser
import QuakeFormat
import QuakeStore

struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact", _superCommandName: "quakes",
        abstract: "Fold what small commits left for later into whole files.",
        discussion: """
            A small commit writes a delta over the store catalog instead of the whole catalog, and \
            a commit that revises the strongest events down can leave the magnitude projection \
            smaller than a rebuild would make it. Loads fold the delta themselves once it passes its \
            limits; compact folds it now and rebuilds such a projection, as one commit under the \
            writer lock. The rows do not change. With nothing to fold it says so and commits nothing.
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var wait: WaitOptions

    func run() throws {
        let interrupt = Interrupt.install()
        defer { interrupt.uninstall() }
        print(try Store.compact(path: store.path, lockWait: wait.lockWait, cancelled: { interrupt.fired }))
    }
}
