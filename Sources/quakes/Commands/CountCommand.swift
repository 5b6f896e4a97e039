import ArgumentParser
import QuakeStore

struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count", _superCommandName: "quakes",
        abstract: "Print the number of matching events.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var filters: FilterOptions
    @OptionGroup var live: WatchOptions

    /// The values parsed, as plain values.
    var args: CountArgs { CountArgs(store: store.args, filters: filters.args, live: live.args) }

    func run() throws { try args.run() }
}

/// What `quakes count` was asked (``CountCommand``), and how it answers: plain values, so the
/// one-shot fast path (``FastPath``) fills them without ArgumentParser.
struct CountArgs: Equatable {
    var store = StoreArgs()
    var filters = FilterArgs()
    var live = WatchArgs()

    /// Every check ArgumentParser runs on a parsed `count`.
    func validateAll() throws { try filters.validate() }

    func run() throws {
        let opened = try store.open()
        guard live.watch else {
            print(try opened.count(try filters.filter(in: opened)))
            return
        }
        try WatchLoop.run(opened, filter: try filters.flagFilter()) { _ in
            print(try opened.count(try filters.filter(in: opened)))
        }
    }
}
