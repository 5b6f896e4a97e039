import QuakeFormat
import QuakeInterchange

/// Standard output for the whole command: one buffered sink through the I/O layer, so that all
/// the command prints stays in order and a failed write reaches the exit status.
enum Console {
    /// The command's standard output; only the main thread writes it.
    // SAFETY: only the main thread uses it (a command's output is written in order by one thread).
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

/// A line of text, without the variadic `print`'s casts: turning an `Any` into text checks its
/// type against the binary's 8,000 protocol conformances, and `joined(separator:)` looks up an
/// associated type by name. Each is one linear scan, about 0.3 ms of a one-shot `count`.
func print(_ s: String) {
    Console.out.write(s)
    Console.out.write("\n")
}

/// A count on a line of its own (as ``print(_:)-(String)``).
func print(_ n: Int) { print(String(n)) }

func writeLine(_ s: String) { print(s) }
