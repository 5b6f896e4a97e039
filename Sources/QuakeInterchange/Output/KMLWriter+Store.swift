import QuakeFormat
import QuakeStore

extension Store {
    /// Writes the events `filter` matches (every one by default) as one KML document, partition
    /// by partition in (time, id) order, as ``export(format:to:filter:)`` writes CSV and GeoJSON.
    /// Memory holds one partition.
    @discardableResult
    package func exportKML(to sink: OutputSink, filter: Filter = .all) throws -> Int {
        let w = KMLWriter(sink: sink)
        let count: Int? = if case .all = filter { manifest.rows } else { nil }
        w.begin(count: count)
        var written = 0
        for e in manifest.partitions {
            let batch = try rows(of: e, filter: filter, columns: KMLWriter.columns)
            dropReader(e)
            for i in 0..<batch.count { w.write(batch, row: i) }
            written += batch.count
        }
        w.end()
        return written
    }
}
