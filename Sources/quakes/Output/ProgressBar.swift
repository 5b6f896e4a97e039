import Foundation
import QuakeStore
import QuakeInterchange
import QuakeFormat
import QuakeSupport
import Synchronization

/// A one-line progress display on standard error that follows the load's phases: read (bytes,
/// rows, MB/s, time left), resolve (id buckets), merge (partitions) and commit. It fits the
/// terminal's width, and a ticker redraws it twice a second so the clock never stands still.
final class ProgressBar: Sendable {
    private let total: Int?
    private let started = Date()
    private struct State {
        var latest: LoadProgress?
        var drawnAt = Date.distantPast
        var running = true
    }
    /// Drawing happens under the lock too, so that lines never interleave.
    private let state = Mutex(State())

    init(total: Int?) {
        self.total = total
        Thread.detachNewThread { [weak self] in
            while let bar = self, bar.tick() { Thread.sleep(forTimeInterval: 0.5) }
        }
    }

    func update(_ p: LoadProgress) {
        state.locked { locked in
            let phaseChanged = locked.latest?.phase != p.phase
            locked.latest = p
            if phaseChanged || Date().timeIntervalSince(locked.drawnAt) > 0.1 { draw(&locked) }
        }
    }

    /// Redraws with the current clock; false once cleared.
    private func tick() -> Bool {
        state.locked { locked in
            if locked.running && locked.latest != nil { draw(&locked) }
            return locked.running
        }
    }

    /// Draws `s.latest` (inside the lock: `s` is the locked state).
    private func draw(_ s: inout State) {
        guard let latest = s.latest else { return }
        s.drawnAt = Date()
        let elapsed = Date().timeIntervalSince(started)
        var fraction: Double?
        var counts = ""
        switch latest.phase {
        case .read:
            if let total, total > 0 { fraction = min(1, Double(latest.bytesRead) / Double(total)) }
            let mbs = elapsed > 0 ? Double(latest.bytesRead) / 1e6 / elapsed : 0
            counts = "\(ProgressBar.short(latest.rows)) rows  " + String(format: "%.0f MB/s", mbs)
            if let done = fraction, done > 0.02, done < 1 {
                counts += String(format: "  %.0f s left", elapsed * (1 - done) / done)
            }
        case .resolve:
            if let steps = latest.total, steps > 0 {
                fraction = Double(latest.done) / Double(steps)
                counts = "\(latest.done)/\(steps) id buckets"
            }
        case .merge:
            if let steps = latest.total, steps > 0 {
                fraction = Double(latest.done) / Double(steps)
                counts = "\(latest.done)/\(steps) partitions"
            }
        case .commit:
            counts = "\(ProgressBar.short(latest.rows)) rows"
        }
        let phase = latest.phase.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        let clock = String(format: "%d:%02d", Int(elapsed) / 60, Int(elapsed) % 60)
        let width = max(20, terminalWidth() - 1)
        var bar = ""
        if let done = fraction {
            let cells = max(0, min(30, width - phase.count - counts.count - clock.count - 12))
            let filled = Int(done * Double(cells))
            if cells >= 5 {
                bar = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: cells - filled) + "] "
            }
            bar += String(format: "%3.0f%%  ", done * 100)
        }
        var line = phase + bar + counts + "  " + clock
        if line.count > width { line = String(line.prefix(width)) }
        FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
    }

    /// 12345678 as "12.3M".
    static func short(_ n: Int) -> String {
        n >= 1_000_000 ? String(format: "%.1fM", Double(n) / 1e6)
            : n >= 10_000 ? String(format: "%.0fK", Double(n) / 1e3) : "\(n)"
    }

    func clear() {
        state.locked { $0.running = false }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
