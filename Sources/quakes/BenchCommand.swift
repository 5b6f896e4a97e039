import ArgumentParser
import QuakeStore

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench", abstract: "Benchmark load, fetch, sort, count, aggregate, search and paging.")
    func run() throws { throw ExitCode(1) }
}
