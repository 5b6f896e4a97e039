/// The store's magnitude projection: every stored row whose magnitude is at least `threshold`,
/// all columns, in one file of the partition format (`partitions/top.g<generation>.qkt`, (time, id)
/// order; an extension of its own, so that `repair` never takes it for a partition).
///
/// A top-N by magnitude descending (a country's strongest quakes) runs on this file alone when
/// its answer's K-th magnitude is at least `threshold`: every row outside the file is weaker,
/// so the answer is exact, and a one-shot query opens one file instead of one per month the
/// answer spans. The file holds about ``capacity(rows:)`` rows whatever the store's size.
///
/// The manifest names it (revision 6) with `partitionsHash`, the hash of the partition file
/// names it was built from: a commit that changes the partitions without rebuilding it drops
/// it, and a reader uses it only for the partitions it was built from.
package struct TopRows: Sendable, Equatable {
    /// The file under `partitions/`.
    package var file: String
    package var rows: Int
    package var minTime: Int64
    package var maxTime: Int64
    package var bytes: Int
    /// Every stored row with a magnitude at least this is in the file; no other row is.
    package var threshold: Double
    /// ``hash(files:)`` of the partitions it was built from.
    package var partitionsHash: UInt64

    package init(file: String, rows: Int, minTime: Int64, maxTime: Int64, bytes: Int, threshold: Double,
                 partitionsHash: UInt64) {
        self.file = file
        self.rows = rows
        self.minTime = minTime
        self.maxTime = maxTime
        self.bytes = bytes
        self.threshold = threshold
        self.partitionsHash = partitionsHash
    }

    package static func fileName(generation: Int) -> String { "top.g\(generation).qkt" }

    /// About how many rows the file keeps for a store of `rows` rows: a sixteenth of a small
    /// store, 16,384 rows from 262,144 rows on (a magnitude shared by more rows than that is
    /// kept whole, so the file can hold more).
    package static func capacity(rows: Int) -> Int { min(maximumCapacity, rows / 16) }
    package static let maximumCapacity = 16_384

    /// Rows per block of the file: one granule, so that a commit whose changes lie in the newest
    /// rows keeps the blocks before them as they are (``Store`` splices the file).
    package static let blockRows = GranuleIndex.granuleRows

    /// The least store size with a projection: below it a scan of the store costs as little.
    package static let minimumStoreRows = 4096

    /// The hash of a snapshot's partition file names, in manifest order: each name's hash
    /// folded in turn (FNV-style), with no copy of the names.
    /// - Complexity: O(the names' bytes).
    package static func hash(files: [String]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for f in files { hash = (hash ^ Manifest.nameHash(f)) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    /// The entry a ``PartitionReader`` opens it by.
    package var entry: PartitionEntry {
        PartitionEntry(key: "top", file: file, rows: rows, minTime: minTime, maxTime: maxTime, bytes: bytes)
    }

    /// The least magnitude that keeps at most `capacity` of the rows whose magnitudes
    /// `counts` gives (value to rows), among values at least `floor`; when the greatest value
    /// alone holds more, that value. Nil when no value is at least `floor`.
    /// - Complexity: O(distinct values log distinct values).
    package static func threshold(_ counts: [Double: Int], floor: Double, capacity: Int) -> Double? {
        var kept: Double?
        var total = 0
        for (v, c) in counts.filter({ $0.key >= floor }).sorted(by: { $0.key > $1.key }) {
            total += c
            if total > capacity && kept != nil { break }
            kept = v
        }
        return kept
    }

    func encode(into w: inout ByteWriter) {
        w.string(file)
        w.u64(UInt64(rows))
        w.i64(minTime)
        w.i64(maxTime)
        w.u64(UInt64(bytes))
        w.u64(threshold.bitPattern)
        w.u64(partitionsHash)
    }

    static func decode(_ r: inout ByteReader) throws(QuakeError) -> TopRows? {
        let file = try r.string()
        if file.isEmpty { return nil }
        let rows = try r.u64(), lo = try r.i64(), hi = try r.i64(), bytes = try r.u64()
        let threshold = Double(bitPattern: try r.u64()), hash = try r.u64()
        guard Manifest.isPlainName(file), rows >= 1, rows < 1 << 40, bytes < 1 << 48, lo <= hi, threshold.isFinite,
              Timestamp.storable.contains(lo), Timestamp.storable.contains(hi) else {
            throw .corrupt("magnitude projection \(file) has impossible values")
        }
        return TopRows(file: file, rows: Int(rows), minTime: lo, maxTime: hi, bytes: Int(bytes), threshold: threshold,
                       partitionsHash: hash)
    }
}
