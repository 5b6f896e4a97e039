import Dispatch
import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// SIGINT and SIGTERM for a running server: the first runs `onStop`, once, on a queue of its own.
/// The server's graceful shutdown (Hummingbird's service group) watches the same signals; this
/// is what it cannot do itself: end the streams that never finish, and bound the wait.
final class StopSignals: Sendable {
    private let sources: Mutex<[any DispatchSourceSignal]>
    private let fired = Atomic(false)
    private static let queue = DispatchQueue(label: "quakes.serve.stop")

    init(_ onStop: @escaping @Sendable () -> Void) {
        sources = Mutex([])
        sources.locked { kept in
            for sig in [SIGINT, SIGTERM] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: Self.queue)
                source.setEventHandler { [self] in
                    if !fired.exchange(true, ordering: .acquiringAndReleasing) { onStop() }
                }
                source.resume()
                kept.append(source)
            }
        }
    }

    /// Stops watching (the server ended on its own).
    func cancel() {
        sources.locked { kept in
            for source in kept { source.cancel() }
            kept.removeAll()
        }
    }

    /// Ends the process after `seconds`, whatever is still open, unless it has ended by then.
    static func exit(after seconds: Double, status: Int32 = 0) {
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: seconds)
            _exit(status)
        }
    }
}
