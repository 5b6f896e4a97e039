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
        let manifest: ManifestV1
        do { manifest = try JSONDecoder().decode(ManifestV1.self, from: data) } catch {
            throw .corrupt(path, "manifest is not valid: \(error)")
        }
        guard manifest.format == "quakes-store", manifest.version == 1,
              manifest.idBuckets.count == Manifest.idBucketCount else {
            throw .unsupported("\(path): store format \(manifest.format) v\(manifest.version) is not supported")
        }
        // keys name the v2 files migrate writes, so they must be plain names too
        for e in manifest.partitions where !Manifest.isPlainName(e.dir) || !Manifest.isPlainName(e.key) || e.rows < 0 {
            throw .corrupt(path, "partition \(e.key) (\(e.dir))")
        }
        for bucket in manifest.idBuckets {
            if let bucket, !Manifest.isPlainName(bucket) { throw .corrupt(path, "id bucket \(bucket)") }
        }
        return manifest
    }

    /// Every row of a v1 partition folder.
    package func readPartition(storePath: String, _ e: Entry) throws(QuakeError) -> RowBatch {
        var batch = RowBatch()
        for c in Column.allCases {
            let file = try MappedFile(path: "\(storePath)/partitions/\(e.dir)/\(c.name).col")
            let blocks = try ColumnFileV1.footer(file, column: c)
            var total = 0
            for (k, info) in blocks.enumerated() {
                let payload = try ColumnFileV1.payload(file, info, index: k, checkFooterSum: true)
                let rowCount = Int(info.rows)
                total += rowCount
                try payload.withStoreBytes { (raw) throws(QuakeError) in
                    switch c.kind {
                    case .timestamp, .decimal:
                        batch.ints[c.rawValue].append(contentsOf: try BytePlanes.decode(raw, rows: rowCount))
                    default:
                        let arena: ByteArena
                        switch c.kind {
                        case .category: arena = try CategoryPayload.decode(raw, rows: rowCount).arena()
                        case .place: arena = try PlacePayload.decode(raw, rows: rowCount).arena()
                        default: arena = try TextPayload.decode(raw, rows: rowCount)
                        }
                        let base = batch.text[c.rawValue].bytes.count
                        batch.text[c.rawValue].bytes.append(contentsOf: arena.bytes)
                        batch.text[c.rawValue].ends.append(contentsOf: arena.ends.map { $0 + base })
                    }
                }
            }
            guard total == e.rows else {
                throw .corrupt("\(storePath)/partitions/\(e.dir)/\(c.name).col: \(total) rows, manifest says \(e.rows)")
            }
        }
        batch.count = e.rows
        batch.present = Array(repeating: Column.allMask, count: e.rows)
        batch.seq = Array(repeating: Int64.min, count: e.rows)
        return batch
    }
}
