import QuakeSupport
import QuakeFormat
import QuakeStore
/// Writes load history for `quakes history`: the list of transactions, or one transaction
/// with its events, as an aligned table, CSV, JSON or NDJSON.
package struct HistoryWriter {
    package enum Format: String, Sendable, CaseIterable { case table, csv, json, ndjson }

    package let format: Format
    package var header = true
    /// Most events a table of one transaction shows (csv, json and ndjson write them all).
    package var tableLimit = 100

    /// What the last line of a cut table of events suggests (the CLI names its flags).
    package var moreHint: String?
    /// How a table shows an input path (the CLI shows it relative to the working directory).
    package var displayPath: (String) -> String = { $0 }

    package init(format: Format) { self.format = format }

    /// Column names of the list; csv begins `generation,committed,files,inserted,updated,unchanged`.
    package static let listColumns = ["generation", "committed", "files", "inserted", "updated", "unchanged",
                                     "bytes", "partitions", "paths"]

    /// One line per transaction. `files` is the number of input files; `paths` lists them.
    package func writeList(_ ts: [HistoryTransaction], to sink: OutputSink) {
        switch format {
        case .table:
            let rows = ts.map { t -> [String] in
                let shown = t.files.first.map(displayPath).map {
                    t.files.count > 1 ? "\($0) (+\(t.files.count - 1) more)" : $0
                } ?? ""
                return ["\(t.generation)", Timestamp.string(t.committedMillis), "\(t.files.count)",
                        t.insertedCount.grouped, t.updatedCount.grouped,
                        t.unchangedCount.grouped, t.bytes.grouped,
                        HistoryWriter.partitionSpan(t.partitions), ResultWriter.tableCell(shown)]
            }
            table(HistoryWriter.listColumns, rows, right: [0, 2, 3, 4, 5, 6], sink)
        case .csv:
            if header { sink.write(HistoryWriter.listColumns.joined(separator: ",") + "\n") }
            for t in ts {
                let fields = ["\(t.generation)", Timestamp.string(t.committedMillis), "\(t.files.count)",
                              "\(t.insertedCount)", "\(t.updatedCount)", "\(t.unchangedCount)", "\(t.bytes)",
                              t.partitions.joined(separator: ";"), t.files.joined(separator: ";")]
                sink.write(fields.map(HistoryWriter.csvField).joined(separator: ",") + "\n")
            }
        case .json:
            sink.write("[")
            for (k, t) in ts.enumerated() {
                sink.write(k == 0 ? "\n  " : ",\n  ")
                object(t, sink)
            }
            sink.write(ts.isEmpty ? "]\n" : "\n]\n")
        case .ndjson:
            for t in ts {
                object(t, sink)
                sink.write("\n")
            }
        }
    }

    /// One transaction: its summary, then its events as `store.forEachChange` yields them.
    package func writeTransaction(_ t: HistoryTransaction, events: ((HistoryChange) throws -> Void) throws -> Void,
                                 to sink: OutputSink) throws {
        switch format {
        case .table:
            let lines = [("generation", "\(t.generation)"), ("committed", Timestamp.string(t.committedMillis)),
                         ("files", t.files.isEmpty ? "-" : t.files.map(displayPath).joined(separator: ", ")),
                         ("inserted", t.insertedCount.grouped),
                         ("updated", t.updatedCount.grouped),
                         ("unchanged", t.unchangedCount.grouped),
                         ("partitions", t.partitions.count > 6 ? HistoryWriter.partitionSpan(t.partitions)
                            : t.partitions.isEmpty ? "-" : t.partitions.joined(separator: ", "))]
            for (k, v) in lines { sink.write(k.padding(11) + v + "\n") }
            var rows: [[String]] = []
            var total = 0
            try events { c in
                total += 1
                guard rows.count < tableLimit else { return }
                rows.append([c.kind.rawValue, c.id, c.partition, c.changedFields.map(\.name).joined(separator: ", ")])
            }
            if !rows.isEmpty {
                sink.write("\n")
                table(["kind", "id", "partition", "changed"], rows, right: [], sink)
            }
            if total > rows.count {
                sink.write("(\(rows.count.grouped) of \(total.grouped) events"
                    + (moreHint.map { "; " + $0 } ?? "") + ")\n")
            }
        case .csv:
            if header { sink.write("generation,kind,id,partition,changed\n") }
            let prefix = "\(t.generation),"
            try events { c in
                sink.write(prefix)
                sink.write(c.kind.rawValue)
                sink.write(",")
                sink.write(HistoryWriter.csvField(c.id))
                sink.write(",")
                sink.write(HistoryWriter.csvField(c.partition))
                sink.write(",")
                if !c.changedFields.isEmpty { sink.write(c.changedFields.map(\.name).joined(separator: ";")) }
                sink.write("\n")
            }
        case .json:
            sink.write("{\"transaction\":")
            object(t, sink)
            sink.write(",\"events\":[")
            var first = true
            try events { c in
                sink.write(first ? "\n  " : ",\n  ")
                first = false
                event(c, t.generation, sink)
            }
            sink.write(first ? "]}\n" : "\n]}\n")
        case .ndjson:
            try events { c in
                event(c, t.generation, sink)
                sink.write("\n")
            }
        }
    }

    private func object(_ t: HistoryTransaction, _ sink: OutputSink) {
        sink.write("{\"generation\":\(t.generation),\"committed\":")
        HistoryWriter.string(Timestamp.string(t.committedMillis), sink)
        sink.write(",\"files\":\(t.files.count),\"inserted\":\(t.insertedCount),\"updated\":\(t.updatedCount)")
        sink.write(",\"unchanged\":\(t.unchangedCount),\"bytes\":\(t.bytes),\"partitions\":")
        HistoryWriter.array(t.partitions, sink)
        sink.write(",\"paths\":")
        HistoryWriter.array(t.files, sink)
        sink.write(",\"token\":")
        HistoryWriter.string(t.token.description, sink)
        sink.write("}")
    }

    private func event(_ c: HistoryChange, _ generation: Int, _ sink: OutputSink) {
        sink.write("{\"generation\":\(generation),\"kind\":\"\(c.kind.rawValue)\",\"id\":")
        HistoryWriter.string(c.id, sink)
        sink.write(",\"partition\":")
        HistoryWriter.string(c.partition, sink)
        sink.write(",\"changed\":")
        HistoryWriter.array(c.changedFields.map(\.name), sink)
        sink.write("}")
    }

    private func table(_ names: [String], _ rows: [[String]], right: Set<Int>, _ sink: OutputSink) {
        var widths = names.map { header ? $0.count : 0 }
        for r in rows { for (k, s) in r.enumerated() { widths[k] = max(widths[k], s.count) } }
        func line(_ values: [String]) -> String {
            var out = values.enumerated().map { k, s in
                let pad = String(repeating: " ", count: widths[k] - s.count)
                return right.contains(k) ? pad + s : s + pad
            }.joined(separator: "  ")
            while out.last == " " { out.removeLast() }
            return out + "\n"
        }
        if header {
            sink.write(line(names))
            sink.write(line(widths.map { String(repeating: "-", count: $0) }))
        }
        for r in rows { sink.write(line(r)) }
    }

    /// `2019-06 .. 2019-07 (2)` for a list of partition keys.
    package static func partitionSpan(_ keys: [String]) -> String {
        guard let first = keys.first, let last = keys.last else { return "-" }
        return keys.count == 1 ? first : "\(first) .. \(last) (\(keys.count))"
    }

    package static func csvField(_ s: String) -> String {
        // bytes, not Characters: a quote, comma or line break is one ASCII byte in UTF-8
        guard s.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    package static func string(_ s: String, _ sink: OutputSink) { FeedWriter.jsonString(s.utf8, into: &sink.buffer) }

    package static func array(_ a: [String], _ sink: OutputSink) {
        sink.write("[")
        for (k, s) in a.enumerated() {
            if k > 0 { sink.write(",") }
            string(s, sink)
        }
        sink.write("]")
    }
}

extension String {
    /// Padded with spaces to `n` characters.
    package func padding(_ n: Int) -> String {
        count >= n ? self + " " : self + String(repeating: " ", count: n - count)
    }
}
