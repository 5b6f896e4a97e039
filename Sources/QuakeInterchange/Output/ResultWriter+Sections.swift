import QuakeSupport
import QuakeFormat
import QuakeStore
extension ResultWriter {
    /// Writes sections: a table per section under a `== KEY ID  (N events)` line, or, for json
    /// and ndjson, one object per section, `{"section":ID,"count":N,"rows":[...]}` (an array
    /// of them for json, one per line for ndjson).
    package func write(sections: [Section], key: String, to sink: OutputSink) {
        switch format {
        case .json, .ndjson:
            if format == .json { sink.write("[") }
            for (k, sec) in sections.enumerated() {
                if format == .json { sink.write(k == 0 ? "\n" : ",\n") }
                sink.write("{\"section\":")
                if let id = sec.id { FeedWriter.jsonString(id.utf8, into: &sink.buffer) } else { sink.write("null") }
                sink.write(",\"count\":\(sec.count),\"rows\":[")
                for i in 0..<sec.rows.count {
                    if i > 0 { sink.write(",") }
                    object(sec.rows.batch, i, sink)
                }
                sink.write("]}")
                if format == .ndjson { sink.write("\n") }
                sink.maybeFlush()
            }
            if format == .json { sink.write(sections.isEmpty ? "]\n" : "\n]\n") }
        default:
            for sec in sections {
                let id = sec.id.map(ResultWriter.tableCell) ?? ResultWriter.nullText
                sink.write("== \(key) \(id)  (\(sec.count.grouped) event\(sec.count == 1 ? "" : "s"))\n")
                var sectionWriter = self
                sectionWriter.matched = nil
                sectionWriter.moreHint = nil
                sectionWriter.table(sec.rows, sink)
                sink.write("\n")
            }
            sink.write("(\(sections.count) section\(sections.count == 1 ? "" : "s"))\n")
        }
        sink.flush()
    }
}
