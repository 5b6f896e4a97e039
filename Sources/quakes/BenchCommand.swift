import ArgumentParser
import QuakeStore

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench", abstract: "(not yet)")
    func run() throws { throw ExitCode(1) }
}
