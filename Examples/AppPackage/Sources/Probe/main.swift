// Probe: runs one named scenario per process and prints what it found, one `key=value` a line.
//
//   Probe SCENARIO STORE [ARGS...]
//
// The tests run it, so that a trap (an overflow, an out-of-range index) fails the one test that
// asked for it, not the whole run. Exit status: 0 when the scenario ran (its findings are in the
// output, an error as `error=KIND`), 64 for a usage error.
import Foundation
import QuakeStore

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, let scenario = Scenario(rawValue: arguments[0]) else {
    let names = Scenario.allCases.map(\.rawValue).joined(separator: " ")
    FileHandle.standardError.write(Data("usage: Probe SCENARIO STORE [ARGS...]\nscenarios: \(names)\n".utf8))
    exit(64)
}

do {
    try scenario.run(store: arguments[1], arguments: Array(arguments.dropFirst(2)))
    report("done", "1")
} catch let e as QuakeError {
    report(e)
} catch {
    report("error", "other")
    report("errorType", "\(type(of: error))")
}
exit(0)
