import Dispatch
import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// Ctrl-C during a load: the first SIGINT (or SIGTERM) asks the load to stop, so it can remove
/// what it wrote and say so; a second one ends the process at once.
final class Interrupt: Sendable {
    /// Signals received so far, and the first one's number.
    private let count = Atomic(0)
    private let first = Atomic<Int32>(0)
    /// The signal sources, set up in ``install()`` and cancelled in ``uninstall()``.
    private let sources = Mutex<[any DispatchSourceSignal]>([])
    private static let queue = DispatchQueue(label: "quakes.interrupt")

    /// True once a signal has arrived.
    var fired: Bool { count.load(ordering: .sequentiallyConsistent) > 0 }

    /// The shell's status for the first signal: 130 for Ctrl-C (SIGINT), 143 for SIGTERM.
    var exitStatus: Int32 {
        let signal = first.load(ordering: .sequentiallyConsistent)
        return 128 + (signal == 0 ? SIGINT : signal)
    }

    static func install() -> Interrupt {
        let interrupt = Interrupt()
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            // made inside the lock: a source is not Sendable, so it is born where it is kept
            interrupt.sources.locked { sources in
                let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                source.setEventHandler { [interrupt] in
                    _ = interrupt.first.compareExchange(expected: 0, desired: sig, ordering: .sequentiallyConsistent)
                    let again = interrupt.count.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue > 1
                    if again { Interrupt.endNow(sig) }
                }
                source.resume()
                sources.append(source)
            }
        }
        return interrupt
    }

    /// Ends the process at once, killed by `sig` as if it had no handler. The signal may be
    /// blocked on this thread (libdispatch can read signals from a descriptor with them
    /// blocked), so it is unblocked first; should it still be caught, the exit status says it.
    private static func endNow(_ sig: Int32) -> Never {
        signal(sig, SIG_DFL)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, sig)
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        raise(sig)
        _exit(128 + sig)
    }

    /// Restores the default handling.
    func uninstall() {
        sources.locked { for s in $0 { s.cancel() } }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
