import Dispatch
import Foundation
import QuakeFormat
import Synchronization

/// Ctrl-C during a load: the first SIGINT (or SIGTERM) asks the load to stop, so it can remove
/// what it wrote and say so; a second one ends the process at once.
final class Interrupt: Sendable {
    /// Signals received so far.
    private let count = Atomic(0)
    /// The signal sources, set up in ``install()`` and cancelled in ``uninstall()``.
    private let sources = Mutex<[any DispatchSourceSignal]>([])
    private static let queue = DispatchQueue(label: "quakes.interrupt")

    /// True once a signal has arrived.
    var fired: Bool { count.load(ordering: .sequentiallyConsistent) > 0 }

    static func install() -> Interrupt {
        let i = Interrupt()
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            // made inside the lock: a source is not Sendable, so it is born where it is kept
            i.sources.locked { sources in
                let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                source.setEventHandler { [i] in
                    let again = i.count.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue > 1
                    if again {
                        signal(sig, SIG_DFL)
                        raise(sig)
                    }
                }
                source.resume()
                sources.append(source)
            }
        }
        return i
    }

    /// Restores the default handling.
    func uninstall() {
        sources.locked { for s in $0 { s.cancel() } }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
