import Foundation

/// The root of a snapshot: everything a reader needs, replaced atomically by each commit.
public struct Manifest: Codable, Sendable, Equatable {
    public var format = "quakes-store"
    public var version = 1
    public var partitioning: Partitioning
    public var blockRows: Int
    /// Incremented by every commit; new files carry it in their names.
    public var generation: Int
    public var rows: Int
    /// Sorted by key (and so by time).
    public var partitions: [PartitionEntry]
    /// Per id-index bucket, its file under `ids/` (nil while empty).
    public var idBuckets: [String?]
    /// Files the last commit replaced, kept one more generation for readers still on it.
    public var retired: [String]

    public static let idBucketCount = 64

    public init(partitioning: Partitioning, blockRows: Int = 65536) {
        self.partitioning = partitioning
        self.blockRows = blockRows
        generation = 0
        rows = 0
        partitions = []
        idBuckets = Array(repeating: nil, count: Manifest.idBucketCount)
        retired = []
    }

    /// Paths, relative to the store, of every file this snapshot uses.
    var liveFiles: Set<String> {
        var s = Set(partitions.map { "partitions/" + $0.dir })
        for b in idBuckets { if let b { s.insert("ids/" + b) } }
        return s
    }

    static func read(_ url: URL) throws(StoreError) -> Manifest {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .io("\(url.path): cannot read manifest") }
        do { return try JSONDecoder().decode(Manifest.self, from: data) } catch {
            throw .corrupt("\(url.path): manifest is not valid: \(error)")
        }
    }

    func encoded() -> [UInt8] {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return Array(try! e.encode(self))
    }
}

/// One partition in a manifest: its folder, row count, time span and sizes.
public struct PartitionEntry: Codable, Sendable, Equatable {
    public var key: String
    /// Folder name under `partitions/`.
    public var dir: String
    public var rows: Int
    public var minTime: Int64
    public var maxTime: Int64
    /// Bytes on disk and encoded bytes per column, as `disk,...;raw,...` in ``Column`` order.
    /// Kept as one string so that reading the manifest (every query does) stays cheap.
    public var columnBytes: String

    init(key: String, dir: String, rows: Int, minTime: Int64, maxTime: Int64, diskBytes: [Int], rawBytes: [Int]) {
        self.key = key
        self.dir = dir
        self.rows = rows
        self.minTime = minTime
        self.maxTime = maxTime
        columnBytes = diskBytes.map(String.init).joined(separator: ",") + ";" + rawBytes.map(String.init).joined(separator: ",")
    }

    private func sizes(_ part: Int) -> [Int] {
        let halves = columnBytes.split(separator: ";", omittingEmptySubsequences: false)
        let v = part < halves.count ? halves[part].split(separator: ",").map { Int($0) ?? 0 } : []
        return v.count == Column.count ? v : Array(repeating: 0, count: Column.count)
    }

    /// Bytes on disk per column, in ``Column`` order.
    public var diskBytes: [Int] { sizes(0) }
    /// Encoded bytes before zstd per column, in ``Column`` order.
    public var rawBytes: [Int] { sizes(1) }
}
