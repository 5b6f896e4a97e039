import Dispatch
import Foundation

/// Ctrl-C during a load: the first SIGINT (or SIGTERM) asks the load to stop, so it can remove
/// what it wrote and say so; a second one ends the process at once.
final class Interrupt: @unchecked Sendable {
    // @unchecked: `count` is read and written under `lock`; the sources are set once in `install`.
    private let lock = NSLock()
    private var count = 0
    private var sources: [any DispatchSourceSignal] = []
    private static let queue = DispatchQueue(label: "quakes.interrupt")

    /// True once a signal has arrived.
    var fired: Bool { lock.lock(); defer { lock.unlock() }; return count > 0 }

    static func install() -> Interrupt {
        let i = Interrupt()
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler { [i] in
                i.lock.lock()
                i.count += 1
                let again = i.count > 1
                i.lock.unlock()
                if again {
                    signal(sig, SIG_DFL)
                    raise(sig)
                }
            }
            source.resume()
            i.sources.append(source)
        }
        return i
    }

    /// Restores the default handling.
    func uninstall() {
        for s in sources { s.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
