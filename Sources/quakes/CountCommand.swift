import ArgumentParser
import QuakeStore

struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "count", abstract: "Print the number of matching events.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var filters: FilterOptions

    func run() throws {
        let s = try store.open()
        print(try s.count(try filters.filter(in: s)))
    }
}
