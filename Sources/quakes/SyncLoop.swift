import Foundation
import QuakeFormat
import QuakeSupport
import QuakeSync
import Synchronization

/// Runs a sync from a synchronous command: the main thread waits, and a Ctrl-C cancels the task.
enum SyncLoop {
    enum Outcome {
        case done(SyncSummary)
        case interrupted
        case failed(QuakeError)
    }

    /// Runs `work` in a task until it ends or `interrupt` fires (which cancels it: the sync stops
    /// within a few milliseconds, its batch in progress committed whole or not at all).
    static func wait(_ interrupt: Interrupt,
                     _ work: @escaping @Sendable () async throws -> SyncSummary) -> Outcome {
        let box = Mutex<Outcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            let outcome: Outcome
            do { outcome = .done(try await work()) } catch let failure as QuakeError {
                outcome = failure.kind == .interrupted ? .interrupted : .failed(failure)
            } catch is CancellationError {
                outcome = .interrupted
            } catch {
                outcome = .failed(QuakeError(.io, detail: "\(error)"))
            }
            box.locked { $0 = outcome }
            done.signal()
        }
        var cancelled = false
        while done.wait(timeout: .now() + 0.02) == .timedOut {
            if interrupt.fired && !cancelled {
                task.cancel()
                cancelled = true
            }
        }
        let outcome = box.locked { $0 } ?? .interrupted
        if cancelled, case .done = outcome { return .interrupted }
        return outcome
    }

    /// Sleeps `seconds`, waking early on a signal; true when one arrived.
    static func sleep(_ seconds: Double, _ interrupt: Interrupt) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if interrupt.fired { return true }
            Thread.sleep(forTimeInterval: min(0.05, max(0, end.timeIntervalSinceNow)))
        }
        return interrupt.fired
    }
}

/// The progress of a first sync on one terminal line: pieces, events and bytes.
final class SyncProgressLine: Sendable {
    private let last = Mutex(0.0)

    func update(_ p: SyncProgress) {
        let now = Date().timeIntervalSince1970
        guard last.locked({ lastDrawn in
            if now - lastDrawn < 0.1 && p.pieces < p.piecesPlanned { return false }
            lastDrawn = now
            return true
        }) else { return }
        let events = p.eventsPlanned > 0 ? "\(p.events.grouped) of \(p.eventsPlanned.grouped)"
            : p.events.grouped
        let line = "sync: piece \(p.pieces) of \(p.piecesPlanned), \(events) events, "
            + String(format: "%.1f MB", Double(p.bytes) / 1e6)
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
    }

    func clear() { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
}
