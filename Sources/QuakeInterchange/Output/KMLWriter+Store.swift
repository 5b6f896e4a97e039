import QuakeFormat
import QuakeStore

extension Store {
    /// Writes the events `filter` matches (every one by default) as one KML document, partition
    /// by partition in (time, id) order, as ``export(format:to:filter:)`` writes CSV and GeoJSON.
    /// Memory holds one partition.
    @discardableResult
    package func exportKML(to sink: OutputSink, filter: Filter = .all) throws -> Int {
        let writer = KMLWriter(sink: sink)
        let count: Int? = if case .all = filter { manifest.rows } else { nil }
        writer.begin(count: count)
        let written = try forEachMatching(filter, columns: KMLWriter.columns) { batch in
            for i in 0..<batch.count { writer.write(batch, row: i) }
        }
        writer.end()
        return written
    }
}
