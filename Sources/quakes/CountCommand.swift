import ArgumentParser
import QuakeStore

struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "count", abstract: "(not yet)")
    func run() throws { throw ExitCode(1) }
}
