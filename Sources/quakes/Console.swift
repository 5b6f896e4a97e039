import QuakeFormat

/// Standard output for the whole command: one buffered sink through the I/O layer, so that all
/// the command prints stays in order and a failed write reaches the exit status.
enum Console {
    /// The command's standard output; only the main thread writes it.
    nonisolated(unsafe) static let out = OutputSink()

    /// Writes what is buffered now (a watch loop between answers); throws a failed write.
    static func flush() throws {
        out.flush()
        try out.check()
    }
}

/// The CLI's `print`: through ``Console/out`` rather than C stdio, so that no write error is lost.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Console.out.write(items.map { "\($0)" }.joined(separator: separator) + terminator)
}
func writeLine(_ s: String) { print(s) }
