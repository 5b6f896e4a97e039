/// The provenance region of a partition file: per row, the fields its versions carried
/// (``RowBatch/present``) and the origins of those that came from older versions
/// (``FieldOrigin``), so that a later load folds new versions with the stored ones as one load of
/// them all would.
///
/// ```
/// u32 payload length, then the payload compressed with zstd:
///   u32 runs, then per run: u32 rows, u64 present mask       (the masks, run-length coded)
///   u32 rows with origins, then per row: u32 row, u8 groups, per group: u64 mask, i64 updated
/// ```
///
/// Files without the region (written before it) hold rows whose every field was carried by
/// their newest version: ``Column/allMask`` and no origins, which is how they were folded then.
package enum ProvenanceRegion {
    /// The directory flag of files that hold the region.
    package static let flag: UInt32 = 8

    /// The region of `batch`, or nil when every row carried every field and has no origins.
    package static func encode(_ batch: RowBatch) -> [UInt8]? {
        guard batch.origins.count > 0 || batch.present.contains(where: { $0 != Column.allMask }) else { return nil }
        var payload = ByteWriter()
        var runs: [(rows: Int, mask: UInt64)] = []
        for mask in batch.present {
            if let last = runs.last, last.mask == mask {
                runs[runs.count - 1].rows += 1
            } else {
                runs.append((1, mask))
            }
        }
        payload.u32(UInt32(runs.count))
        for run in runs {
            payload.u32(UInt32(run.rows))
            payload.u64(run.mask)
        }
        payload.u32(UInt32(batch.origins.count))
        for (row, list) in batch.origins.sorted(by: { $0.key < $1.key }) {
            payload.u32(UInt32(row))
            payload.u8(UInt8(clamping: list.count))
            for origin in list.prefix(Int(UInt8.max)) {
                payload.u64(origin.mask)
                payload.i64(origin.updated)
            }
        }
        var out = ByteWriter()
        out.u32(UInt32(payload.bytes.count))
        out.bytes.append(contentsOf: Zstd.compress(payload.bytes))
        return out.bytes
    }

    /// The masks and origins of `rows` rows from the region's bytes `region`.
    /// - Throws: ``QuakeError/Kind/corrupt`` when the bytes do not decode to `rows` rows.
    package static func decode(_ region: UnsafeRawBufferPointer,
                               rows: Int) throws(QuakeError) -> (present: [UInt64], origins: [Int: [FieldOrigin]]) {
        var header = ByteReader(region)
        let size = Int(try header.u32())
        guard size <= 64 * (rows + 1) + 32 * rows else { throw .corrupt("provenance: \(size) bytes for \(rows) rows") }
        // SAFETY: 4 <= region.count (the u32 above was read from it), so the slice lies inside it.
        let payload = try Zstd.decompress(UnsafeRawBufferPointer(rebasing: region[4...]), expectedSize: size)
        return try payload.withStoreBytes { (bytes) throws(QuakeError) in
            var reader = ByteReader(bytes)
            var present: [UInt64] = []
            present.reserveCapacity(rows)
            let runs = Int(try reader.u32())
            for _ in 0..<runs {
                let length = Int(try reader.u32())
                guard length <= rows - present.count else { throw .corrupt("provenance: runs past \(rows) rows") }
                let mask = try reader.u64()
                guard mask & ~Column.allMask == 0 else { throw .corrupt("provenance: mask \(mask)") }
                present.append(contentsOf: repeatElement(mask, count: length))
            }
            guard present.count == rows else { throw .corrupt("provenance: \(present.count) masks for \(rows) rows") }
            var origins: [Int: [FieldOrigin]] = [:]
            let originRows = Int(try reader.u32())
            guard originRows <= rows else { throw .corrupt("provenance: \(originRows) rows with origins") }
            for _ in 0..<originRows {
                let row = Int(try reader.u32())
                guard row < rows, origins[row] == nil else { throw .corrupt("provenance: origins of row \(row)") }
                let groups = Int(try reader.u8())
                var list: [FieldOrigin] = []
                for _ in 0..<groups {
                    let mask = try reader.u64()
                    list.append(FieldOrigin(mask: mask, updated: try reader.i64()))
                }
                origins[row] = list
            }
            guard reader.remaining == 0 else { throw .corrupt("provenance: \(reader.remaining) stray bytes") }
            return (present, origins)
        }
    }
}
