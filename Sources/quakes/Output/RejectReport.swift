import Foundation
import QuakeStore
import QuakeFormat
import QuakeSupport
import Synchronization

/// The rejects of a load, as the terminal shows them: when most rows of a file fail for the same
/// reason, one line for the file (with a sample, the likely cause and the option that fixes it);
/// the other rejects one per line, the first ``shown`` of them. Fed from the loader's threads.
final class RejectReport: Sendable {
    static let shown = 100

    private struct Reason {
        var count = 0
        var first: Reject
        /// The largest first and second numbers of the rejected time values, to tell day-first
        /// dates from month-first ones.
        var maxFirst = 0, maxSecond = 0
    }

    private struct State {
        var byFile: [String: [String: Reason]] = [:]
        /// Per file, its first rejects (up to ``shown``), in the order the files came.
        var listed: [String: [Reject]] = [:]
        var files: [String] = []
        var total = 0
        /// Why each file rejected whole was, in the order they came.
        var skipped: [QuakeError] = []

        mutating func add(_ r: Reject, key: String) {
            total += 1
            var reasons = byFile[r.file, default: [:]]
            if reasons[key] == nil && reasons.count >= 32 {
                // a file with very many different reasons: count them under one
                reasons["", default: Reason(first: r)].count += 1
            } else {
                var reason = reasons[key] ?? Reason(first: r)
                reason.count += 1
                if let (first, second) = RejectReport.leadingNumbers(RejectReport.value(r.reason)) {
                    reason.maxFirst = max(reason.maxFirst, first)
                    reason.maxSecond = max(reason.maxSecond, second)
                }
                reasons[key] = reason
            }
            byFile[r.file] = reasons
            if listed[r.file] == nil { files.append(r.file) }
            if listed[r.file, default: []].count < RejectReport.shown { listed[r.file, default: []].append(r) }
        }

        func lines(_ summary: LoadSummary, rejectsFile: String?) -> [String] {
            var out: [String] = []
            var summarized: [String: String] = [:]   // file -> reason kind told once
            for file in summary.perFile where file.rejected > 0 {
                guard let (key, reason) = byFile[file.path]?.max(by: { $0.value.count < $1.value.count }),
                      !key.isEmpty, reason.count * 2 > file.rows, reason.count >= 10 else { continue }
                summarized[file.path] = key
                let of = file.rows == reason.count ? "all \(file.rows.grouped) rows"
                    : "\(reason.count.grouped) of \(file.rows.grouped) rows"
                var line = "rejected: \(file.path): \(of) for the same reason, "
                    + "first at \(RejectReport.place(reason.first)): " + reason.first.reason
                if let hint = RejectReport.hint(reason) { line += "; " + hint }
                out.append(line)
            }
            let rest = files.flatMap { (listed[$0] ?? []).sorted { $0.line < $1.line } }
                .filter { summarized[$0.file] != RejectReport.kind($0.reason) }
            for reject in rest.prefix(RejectReport.shown) { out.append("rejected: \(reject)") }
            let toldOnce = summarized.reduce(0) { n, e in n + (byFile[e.key]?[e.value]?.count ?? 0) }
            let more = total - toldOnce - min(rest.count, RejectReport.shown)
            if more > 0 {
                out.append(rejectsFile.map { "rejected: … and \(more) more (all \(total) are in \($0))" }
                    ?? "rejected: … and \(more) more (use --rejects FILE for all)")
            }
            return out
        }
    }
    private let state = Mutex(State())

    /// Rejects added so far.
    var total: Int { state.locked { $0.total } }

    /// Keeps why a file was rejected whole, to tell once the load is over.
    func skip(_ error: QuakeError) {
        state.locked { $0.skipped.append(error) }
    }

    /// Why each file kept by ``skip(_:)`` was rejected whole.
    var skippedFiles: [QuakeError] { state.locked { $0.skipped } }

    func add(_ r: Reject) {
        let key = RejectReport.kind(r.reason)
        state.locked { $0.add(r, key: key) }
    }

    /// The lines to print once the load is over; `rejectsFile` is where `--rejects` wrote them all.
    func lines(_ summary: LoadSummary, rejectsFile: String?) -> [String] {
        state.locked { $0.lines(summary, rejectsFile: rejectsFile) }
    }

    private static func place(_ r: Reject) -> String { r.isFeature ? "feature \(r.line)" : "line \(r.line)" }

    /// The reason without its quoted value: rows that fail the same way share it.
    static func kind(_ reason: String) -> String {
        guard let open = reason.firstIndex(of: "'"), let close = reason.lastIndex(of: "'"), open < close else {
            return reason
        }
        return String(reason[..<open]) + "…" + String(reason[reason.index(after: close)...])
    }

    /// The quoted value of a reason.
    private static func value(_ reason: String) -> String {
        guard let open = reason.firstIndex(of: "'"), let close = reason.lastIndex(of: "'"), open < close else {
            return ""
        }
        return String(reason[reason.index(after: open)..<close])
    }

    /// The first two numbers of a value like `04-02-19 21:55`.
    private static func leadingNumbers(_ v: String) -> (Int, Int)? {
        let parts = v.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    /// The likely cause of a reason and the option that fixes it, when one is known.
    private static func hint(_ r: Reason) -> String? {
        let reason = r.first.reason
        guard reason.hasPrefix("time:") || reason.hasPrefix("updated:"), reason.contains("not an ISO-8601 time") else {
            return nil
        }
        let dayFirst = r.maxFirst > 12 || r.maxSecond <= 12
        guard let format = guessFormat(value(reason), dayFirst: dayFirst) else { return nil }
        var hint = "it looks like a time re-saved by a spreadsheet; load with --time-format '\(format)'"
        if r.maxFirst <= 12 && r.maxSecond <= 12 && format.contains("%d") && format.contains("%m") {
            hint += " (or with %d and %m swapped if months come first: no day in the file tells)"
        }
        if format.contains("%y") { hint += "; %y reads 00-68 as 2000-2068 and 69-99 as 1969-1999" }
        return hint
    }

    /// A strptime pattern for a spreadsheet-style time: `04-02-19 21:55`, `4/2/2019 9:55:01 PM`.
    static func guessFormat(_ v: String, dayFirst: Bool) -> String? {
        let trimmed = v.trimmingCharacters(in: .whitespaces)
        let pieces = trimmed.split(separator: " ", maxSplits: 1)
        guard let date = pieces.first else { return nil }
        guard let sep = date.first(where: { $0 == "-" || $0 == "/" || $0 == "." }) else { return nil }
        let dateParts = date.split(separator: sep)
        guard dateParts.count == 3, dateParts.allSatisfy({ $0.allSatisfy(\.isNumber) }) else { return nil }
        let s0 = String(sep)
        var format: String
        if dateParts[0].count == 4 {
            format = "%Y\(s0)%m\(s0)%d"
        } else {
            let year = dateParts[2].count == 4 ? "%Y" : "%y"
            format = (dayFirst ? "%d\(s0)%m" : "%m\(s0)%d") + "\(s0)\(year)"
        }
        guard pieces.count == 2 else { return format }
        var time = String(pieces[1])
        var ampm = false
        if time.uppercased().hasSuffix("AM") || time.uppercased().hasSuffix("PM") {
            ampm = true
            time = String(time.dropLast(2)).trimmingCharacters(in: .whitespaces)
        }
        let timeParts = time.split(separator: ":")
        guard (2...3).contains(timeParts.count), timeParts.allSatisfy({ !$0.isEmpty }) else { return nil }
        let hour = ampm ? "%I" : "%H"
        var clock = timeParts.count == 2 ? "\(hour):%M" : "\(hour):%M:%S"
        if timeParts.count == 3, timeParts[2].contains(".") { clock += ".%f" }
        format += " " + clock + (ampm ? " %p" : "")
        return format
    }
}
