import ArgumentParser
import QuakeStore
import QuakeFormat
import QuakeInterchange
import QuakeTestSupport

struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count", _superCommandName: "quakes",
        abstract: "Print the number of matching events.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var filters: FilterOptions
    @OptionGroup var live: WatchOptions

    func run() throws {
        let s = try store.open()
        guard live.watch else { print(try s.count(try filters.filter(in: s))); return }
        try WatchLoop.run(s, filter: try filters.flagFilter()) { _ in print(try s.count(try filters.filter(in: s))) }
    }
}
