import ArgumentParser
import QuakeStore

struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "count", abstract: "Print the number of matching events.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var filters: FilterOptions

    func run() throws {
        print(try store.open().count(try filters.filter()))
    }
}
