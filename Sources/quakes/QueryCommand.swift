import ArgumentParser
import QuakeStore

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "query", abstract: "(not yet)")
    func run() throws { throw ExitCode(1) }
}
