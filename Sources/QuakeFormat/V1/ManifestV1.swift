import Foundation

/// The JSON manifest of format v1 (`manifest.json`), read only to migrate a v1 store.
package struct ManifestV1: Codable, Sendable {
    package var format: String
    package var version: Int
    package var partitioning: Partitioning
    package var blockRows: Int
    package var generation: Int
    package var rows: Int
    package var partitions: [Entry]
    package var idBuckets: [String?]
    package var retired: [String]

    /// One v1 partition: a folder of column files.
    package struct Entry: Codable, Sendable {
        package var key: String
        package var dir: String
        package var rows: Int
        package var minTime: Int64
        package var maxTime: Int64
    }

    package static let fileName = "manifest.json"

    package static func read(path: String) throws(QuakeError) -> ManifestV1 {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch { throw .io(path, "cannot read manifest") }
        let m: ManifestV1
        do { m = try JSONDecoder().decode(ManifestV1.self, from: data) } catch {
            throw .corrupt(path, "manifest is not valid: \(error)")
        }
        guard m.format == "quakes-store", m.version == 1, m.idBuckets.count == Manifest.idBucketCount else {
            throw .unsupported("\(path): store format \(m.format) v\(m.version) is not supported")
        }
        // keys name the v2 files migrate writes, so they must be plain names too
        for e in m.partitions where !Manifest.isPlainName(e.dir) || !Manifest.isPlainName(e.key) || e.rows < 0 {
            throw .corrupt(path, "partition \(e.key) (\(e.dir))")
        }
        for b in m.idBuckets { if let b, !Manifest.isPlainName(b) { throw .corrupt(path, "id bucket \(b)") } }
        return m
    }

    /// Every row of a v1 partition folder.
    package func readPartition(storePath: String, _ e: Entry) throws(QuakeError) -> RowBatch {
        var batch = RowBatch()
        for c in Column.allCases {
            let f = try MappedFile(path: "\(storePath)/partitions/\(e.dir)/\(c.name).col")
            let blocks = try ColumnFileV1.footer(f, column: c)
            var total = 0
            for (k, info) in blocks.enumerated() {
                let p = try ColumnFileV1.payload(f, info, index: k, checkFooterSum: true)
                let n = Int(info.rows)
                total += n
                try p.withStoreBytes { (raw) throws(QuakeError) in
                    switch c.kind {
                    case .timestamp, .decimal: batch.ints[c.rawValue].append(contentsOf: try BytePlanes.decode(raw, rows: n))
                    default:
                        let a: ByteArena
                        switch c.kind {
                        case .category: a = try CategoryPayload.decode(raw, rows: n).arena()
                        case .place: a = try PlacePayload.decode(raw, rows: n).arena()
                        default: a = try TextPayload.decode(raw, rows: n)
                        }
                        let base = batch.text[c.rawValue].bytes.count
                        batch.text[c.rawValue].bytes.append(contentsOf: a.bytes)
                        batch.text[c.rawValue].ends.append(contentsOf: a.ends.map { $0 + base })
                    }
                }
            }
            guard total == e.rows else { throw .corrupt("\(storePath)/partitions/\(e.dir)/\(c.name).col: \(total) rows, manifest says \(e.rows)") }
        }
        batch.count = e.rows
        batch.present = Array(repeating: Column.allMask, count: e.rows)
        batch.seq = Array(repeating: Int64.min, count: e.rows)
        return batch
    }
}
