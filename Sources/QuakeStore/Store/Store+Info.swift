import QuakeFormat
/// Sizes and spans of a store, as `quakes info` prints them (``Store/info()``).
public struct StoreInfo: Codable, Sendable, Hashable {
    /// One column's bytes on disk and codecs.
    public struct ColumnSize: Codable, Sendable, Hashable {
        /// The column's USGS name.
        public var column: String
        /// Bytes of its chunks on disk, over every partition.
        public var diskBytes: Int
        /// The codecs its chunks use, most used first.
        public var codecs: [String]
    }
    /// The store directory.
    public var path: String
    /// The on-disk format version.
    public var format: Int
    /// How events are bucketed into partitions: `day`, `month` or `year`.
    public var partitioning: String
    /// The committed generation described.
    public var generation: Int
    /// Partition files.
    public var partitions: Int
    /// Events stored, tombstones included.
    public var rows: Int
    /// The earliest event time (ISO 8601), nil for an empty store.
    public var firstTime: String?
    /// The latest event time (ISO 8601), nil for an empty store.
    public var lastTime: String?
    /// Partition files and id index together.
    public var diskBytes: Int
    /// Chunk directories, zone maps, granule statistics and mag histograms.
    public var indexBytes: Int
    /// Bytes of the event-id index.
    public var idIndexBytes: Int
    /// The store catalog (magnitude counts per partition run) and its delta, 0 when there is none.
    public var catalogBytes: Int
    /// The catalog delta's file, relative to the store (`partitions/catalog.gN.qkd`); nil when
    /// the catalog is whole. `quakes compact` folds it into the catalog.
    public var catalogDeltaFile: String?
    /// Partitions the catalog delta lists; 0 when there is none or it reads damaged.
    public var catalogDeltaPartitions = 0
    /// The magnitude projection (`TopRows`): its file's bytes, rows and threshold; 0 rows when
    /// there is none.
    public var projectionBytes: Int
    /// Rows in the magnitude projection.
    public var projectionRows: Int
    /// The magnitude from which events are in the projection, nil when there is none.
    public var projectionThreshold: Double?
    /// The projection's file, relative to the store (`partitions/top.gN.qkt`); nil when there is
    /// none. The file of the snapshot before stays beside it until the next commit.
    public var projectionFile: String?
    /// True when the store is large enough for a projection and has none (its last one read
    /// damaged or was missing), or when the file the manifest names is gone: `quakes repair`
    /// builds it. Damage inside the file is `verify`'s to find.
    public var projectionMissing = false
    /// The partitions' place indexes (part of ``indexBytes``).
    public var placeIndexBytes: Int
    /// The partitions' unit aggregates (part of ``indexBytes``).
    public var aggregateBytes: Int
    /// Each column's bytes and codecs.
    public var columns: [ColumnSize]
    /// Load transactions kept under `history/`, their bytes, and the generation after which
    /// the history is complete.
    public var historyTransactions: Int
    /// Bytes of the kept history.
    public var historyBytes: Int
    /// The generation after which the history is complete (older ones were pruned).
    public var historyCompleteAfter: Int
}

extension Store {
    /// Partitions, rows, time span and per-column sizes and codecs of the current snapshot.
    /// - Complexity: reads every partition's directory.
    public func info() throws(QuakeError) -> StoreInfo {
        _ = freshManifest()
        var disk = [Int](repeating: 0, count: Column.count)
        var codecUse = [[CodecID: Int]](repeating: [:], count: Column.count)
        var index = 0
        var files = 0
        var place = 0
        var aggregates = 0
        for entry in manifest.partitions {
            let directory = try reader(entry).directory()
            var chunks = 0
            for c in Column.allCases {
                for chunk in directory.chunks[c.rawValue] {
                    disk[c.rawValue] += chunk.length
                    chunks += chunk.length
                    codecUse[c.rawValue][chunk.codec, default: 0] += 1
                }
            }
            index += entry.bytes - chunks
            place += directory.placeIndex?.length ?? 0
            aggregates += directory.aggregates?.length ?? 0
            files += entry.bytes
        }
        var ids = 0
        for bucket in manifest.idBuckets {
            if let bucket { ids += FileIO.size(path + "/ids/" + bucket) }
        }
        let catalog = [manifest.catalog, manifest.catalogDelta].compactMap { $0 }
            .reduce(0) { $0 + FileIO.size(path + "/partitions/" + $1) }
        let cols = Column.allCases.map { c in
            StoreInfo.ColumnSize(column: c.name, diskBytes: disk[c.rawValue],
                                 codecs: codecUse[c.rawValue].sorted { $0.value > $1.value }.map(\.key.name))
        }
        // the projection's bytes as they lie: none when its file is gone
        let projection = manifest.top.map { FileIO.size(path + "/partitions/" + $0.file) } ?? 0
        let history = historyExtent
        var info = StoreInfo(path: path, format: Manifest.storeFormat, partitioning: manifest.partitioning.rawValue,
                            generation: manifest.generation, partitions: manifest.partitions.count, rows: manifest.rows,
                            firstTime: manifest.partitions.first.map { Timestamp.string($0.minTime) },
                            lastTime: manifest.partitions.last.map { Timestamp.string($0.maxTime) },
                            diskBytes: files + ids + catalog + projection, indexBytes: index,
                            idIndexBytes: ids, catalogBytes: catalog, projectionBytes: projection,
                            projectionRows: manifest.top?.rows ?? 0, projectionThreshold: manifest.top?.threshold,
                            placeIndexBytes: place, aggregateBytes: aggregates, columns: cols,
                            historyTransactions: history.transactions, historyBytes: history.bytes,
                            historyCompleteAfter: history.completeAfter)
        info.catalogDeltaFile = manifest.catalogDelta.map { "partitions/" + $0 }
        if manifest.catalogDelta != nil {
            info.catalogDeltaPartitions = (try? self.catalog(manifest))?.delta?.entries.count ?? 0
        }
        info.projectionFile = manifest.top.map { "partitions/" + $0.file }
        info.projectionMissing = manifest.top.map { !FileIO.exists(path + "/partitions/" + $0.file) }
            ?? (manifest.rows >= TopRows.minimumStoreRows)
        return info
    }
}
