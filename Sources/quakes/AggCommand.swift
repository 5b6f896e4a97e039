import ArgumentParser
import QuakeStore

struct AggCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "agg", abstract: "(not yet)")
    func run() throws { throw ExitCode(1) }
}
