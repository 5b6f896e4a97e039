import Foundation
import QuakeStore

/// A one-line progress bar on standard error: bytes, rows, MB/s and ETA.
final class ProgressBar: @unchecked Sendable {
    private let total: Int?
    private var last = Date.distantPast
    private let lock = NSLock()

    init(total: Int?) { self.total = total }

    func update(_ p: LoadProgress) {
        lock.lock(); defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(last) > 0.1 else { return }
        last = now
        let mbs = p.elapsedSeconds > 0 ? Double(p.bytesRead) / 1e6 / p.elapsedSeconds : 0
        var line = String(format: "%10d rows  %7.1f MB/s", p.rows, mbs)
        if let total, total > 0 {
            let f = min(1, Double(p.bytesRead) / Double(total))
            let width = 30
            let filled = Int(f * Double(width))
            let eta = f > 0 ? p.elapsedSeconds * (1 - f) / f : 0
            line = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
                + String(format: "%3.0f%%  ", f * 100) + line + String(format: "  ETA %4.0f s", eta)
        }
        FileHandle.standardError.write(Data(("\r" + line).utf8))
    }

    func clear() {
        FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: 100) + "\r").utf8))
    }
}
