import ArgumentParser
import Foundation
import QuakeStore

/// A date a flag takes, and the error that names the flag as the user typed it.
enum DateArgument {
    /// Milliseconds since the epoch for `text`, or a usage error naming `flag`: why the date
    /// does not exist (`February 2024 has 29 days`), or the forms that are dates.
    static func parse(_ text: String, _ flag: String, roundingUp: Bool = true) throws -> Int64 {
        guard let millis = DateParsing.parse(text, roundingUp: roundingUp) else {
            throw ValidationError(message(text, flag))
        }
        return millis
    }

    /// The usage error for a `flag` value that is no date.
    static func message(_ text: String, _ flag: String) -> String {
        if let problem = DateParsing.problem(text) { return "\(flag): '\(text)' does not exist: \(problem)" }
        return "\(flag): not a date: '\(text)' (use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"
    }

    /// Of the spellings of one option (`--from`, `--starttime`, `--start`), the one on the command
    /// line, so that an error names what the user typed; the first when none is there.
    static func typed(_ spellings: [String]) -> String {
        let arguments = CommandLine.arguments.dropFirst()
        for argument in arguments {
            if let spelling = spellings.first(where: { argument == $0 || argument.hasPrefix($0 + "=") }) {
                return spelling
            }
        }
        return spellings[0]
    }
}
