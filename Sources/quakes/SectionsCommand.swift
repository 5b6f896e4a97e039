import ArgumentParser
import QuakeStore

struct SectionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sections", abstract: "(not yet)")
    func run() throws { throw ExitCode(1) }
}
