/// Sizes and spans of a store, for `quakes info`.
public struct StoreInfo: Codable, Sendable {
    public struct ColumnSize: Codable, Sendable {
        public var column: String
        public var diskBytes: Int
        public var rawBytes: Int
        /// Encoded bytes over bytes on disk (what zstd saved).
        public var ratio: Double
    }
    public var path: String
    public var partitioning: String
    public var generation: Int
    public var partitions: Int
    public var rows: Int
    public var firstTime: String?
    public var lastTime: String?
    public var diskBytes: Int
    public var rawBytes: Int
    public var columns: [ColumnSize]
}

extension Store {
    /// Partitions, rows, time span and per-column sizes of the current snapshot.
    public func info() -> StoreInfo {
        var disk = [Int](repeating: 0, count: Column.count), raw = disk
        for p in manifest.partitions {
            let d = p.diskBytes, r = p.rawBytes
            for c in 0..<Column.count { disk[c] += d[c]; raw[c] += r[c] }
        }
        let cols = Column.allCases.map { c in
            StoreInfo.ColumnSize(column: c.name, diskBytes: disk[c.rawValue], rawBytes: raw[c.rawValue],
                                 ratio: disk[c.rawValue] > 0 ? Double(raw[c.rawValue]) / Double(disk[c.rawValue]) : 0)
        }
        return StoreInfo(path: path, partitioning: manifest.partitioning.rawValue, generation: manifest.generation,
                         partitions: manifest.partitions.count, rows: manifest.rows,
                         firstTime: manifest.partitions.first.map { Timestamp.string($0.minTime) },
                         lastTime: manifest.partitions.last.map { Timestamp.string($0.maxTime) },
                         diskBytes: disk.reduce(0, +), rawBytes: raw.reduce(0, +), columns: cols)
    }
}
