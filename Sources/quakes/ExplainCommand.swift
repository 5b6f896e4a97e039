import ArgumentParser
import QuakeStore

struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "explain", abstract: "(not yet)")
    func run() throws { throw ExitCode(1) }
}
