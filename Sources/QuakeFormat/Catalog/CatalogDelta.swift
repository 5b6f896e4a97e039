import QuakeSupport

/// The partitions that small commits replaced since the store ``Catalog`` was written, each with
/// its new file, magnitude histogram and place summary: `partitions/catalog.g<generation>.qkd`.
/// A reader lays it over the catalog, so a commit that replaces a few partitions writes a few
/// kilobytes instead of the catalog's running counts, all of which change after the first
/// replaced partition. A commit whose delta would pass ``maximumPartitions`` (or a quarter of the
/// catalog's size and ``smallBytes``), or that brings a magnitude or locality the catalog does not list, writes the
/// catalog whole and no delta: the delta is folded in, bounded per commit.
///
/// ```
/// "QKCDELT1", u64 the catalog header's checksum, u32 partitions P (the catalog's), u32 entries C,
/// C entries ascending by partition:
///   u32 partition, file name (u16 length + UTF-8),
///   u32 values n, n u32 indexes into the catalog's magnitudes (ascending), n u32 counts (> 0), u64 nulls,
///   u8 summarized, then when 1: u32 m, m × (u32 locality ordinal (ascending), f64 least, f64 greatest)
/// ```
/// The manifest holds the whole file's checksum, checked before anything is read.
package struct CatalogDelta: Sendable, Equatable {
    package static let magic: [UInt8] = Array("QKCDELT1".utf8)
    package static let fileExtension = "qkd"
    /// Most partitions a delta lists; a commit past it writes the catalog whole. A delta of n
    /// partitions writes about n × d bytes (d ≈ 20 KB on 10 M rows) where the catalog is C (1.4 MB):
    /// folding every n commits costs about n·d/2 + C/n a commit, least near n = √(2C/d) ≈ 12.
    package static let maximumPartitions = 16
    /// A delta up to this size is written even when it passes a quarter of the catalog's size
    /// (a small store's catalog is small too).
    package static let smallBytes = 64 << 10
    /// Largest delta file read.
    static let sizeLimit = 16 << 20

    package static func fileName(generation: Int) -> String { "catalog.g\(generation).\(fileExtension)" }

    /// One locality of a replaced partition: its ordinal among the catalog's localities, and
    /// the least and greatest magnitude of its rows (NaN when none has one).
    package struct Place: Sendable, Equatable {
        package var ordinal: UInt32
        package var least: Double
        package var greatest: Double

        package init(ordinal: UInt32, least: Double, greatest: Double) {
            self.ordinal = ordinal
            self.least = least
            self.greatest = greatest
        }

        package static func == (lhs: Place, rhs: Place) -> Bool {
            lhs.ordinal == rhs.ordinal && lhs.least.bitPattern == rhs.least.bitPattern
                && lhs.greatest.bitPattern == rhs.greatest.bitPattern
        }
    }

    /// A replaced partition (its counts each fit a u32: a partition past that is written whole).
    package struct Entry: Sendable, Equatable {
        package var partition: Int
        package var file: String
        /// Indexes into the catalog's magnitudes, ascending, and the rows holding each.
        package var valueIndexes: [Int]
        package var counts: [UInt64]
        package var nulls: UInt64
        /// Its localities, ascending by ordinal; nil when the partition has no place index.
        package var places: [Place]?

        package init(partition: Int, file: String, valueIndexes: [Int], counts: [UInt64], nulls: UInt64,
                     places: [Place]?) {
            self.partition = partition
            self.file = file
            self.valueIndexes = valueIndexes
            self.counts = counts
            self.nulls = nulls
            self.places = places
        }
    }

    /// The checksum of the header of the catalog it lies over.
    package var catalogChecksum: UInt64
    /// The catalog's number of partitions.
    package var partitions: Int
    /// Ascending by partition, each once.
    package var entries: [Entry]

    package init(catalogChecksum: UInt64, partitions: Int, entries: [Entry]) {
        self.catalogChecksum = catalogChecksum
        self.partitions = partitions
        self.entries = entries
    }

    /// The file's bytes and their checksum (which the manifest keeps).
    package func encoded() -> (bytes: [UInt8], checksum: UInt64) {
        var writer = ByteWriter()
        writer.bytes.append(contentsOf: CatalogDelta.magic)
        writer.u64(catalogChecksum)
        writer.u32(UInt32(partitions))
        writer.u32(UInt32(entries.count))
        for entry in entries {
            writer.u32(UInt32(entry.partition))
            writer.string(entry.file)
            writer.u32(UInt32(entry.valueIndexes.count))
            for index in entry.valueIndexes { writer.u32(UInt32(index)) }
            for count in entry.counts { writer.u32(UInt32(truncatingIfNeeded: count)) }
            writer.u64(entry.nulls)
            if let places = entry.places {
                writer.u8(1)
                writer.u32(UInt32(places.count))
                for place in places {
                    writer.u32(place.ordinal)
                    writer.u64(place.least.bitPattern)
                    writer.u64(place.greatest.bitPattern)
                }
            } else {
                writer.u8(0)
            }
        }
        return (writer.bytes, Checksum.hash(writer.bytes))
    }

    /// Reads the delta at `path`, whose bytes must hash to `checksum` (from the manifest).
    package init(path: String, checksum: UInt64) throws(QuakeError) {
        let bytes = try FileIO.readFile(path, limit: CatalogDelta.sizeLimit)
        guard Checksum.hash(bytes) == checksum else { throw .corrupt(path, "catalog delta checksum mismatch") }
        do throws(QuakeError) {
            self = try bytes.withStoreBytes { (raw) throws(QuakeError) -> CatalogDelta in try CatalogDelta.decode(raw) }
        } catch {
            throw error.kind == .corrupt ? error.at(path) : error
        }
    }

    /// Parses and checks a delta's bytes: entries ascending by partition and inside the
    /// catalog's, plain file names, magnitude indexes and locality ordinals ascending, counts
    /// above zero. That the indexes and ordinals name the catalog's is checked by the catalog.
    static func decode(_ raw: UnsafeRawBufferPointer) throws(QuakeError) -> CatalogDelta {
        var reader = ByteReader(raw)
        guard raw.count >= 8, (0..<8).allSatisfy({ raw[$0] == magic[$0] }) else {
            throw .corrupt("not a catalog delta (bad magic)")
        }
        reader.pos = 8
        let catalogChecksum = try reader.u64()
        let partitions = Int(try reader.u32())
        let count = Int(try reader.u32())
        guard count <= partitions, count <= reader.remaining / 8 else {
            throw .corrupt("delta lists \(count) of \(partitions) partitions")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let partition = Int(try reader.u32())
            guard partition < partitions, entries.last.map({ $0.partition < partition }) ?? true else {
                throw .corrupt("delta entry for partition \(partition)")
            }
            let file = try reader.string()
            guard Manifest.isPlainName(file) else { throw .corrupt("delta names file \(file)") }
            let valueCount = Int(try reader.u32())
            guard valueCount <= reader.remaining / 8 else { throw .corrupt("delta lists \(valueCount) magnitudes") }
            let indexes = try reader.raw(valueCount, as: UInt32.self).map { Int(UInt32(littleEndian: $0)) }
            let counts = try reader.raw(valueCount, as: UInt32.self).map { UInt64(UInt32(littleEndian: $0)) }
            guard zip(indexes, indexes.dropFirst()).allSatisfy({ $0 < $1 }), !counts.contains(0) else {
                throw .corrupt("delta magnitudes of partition \(partition)")
            }
            let nulls = try reader.u64()
            guard nulls < 1 << 48 else { throw .corrupt("delta nulls of partition \(partition)") }
            var places: [Place]?
            switch try reader.u8() {
            case 0:
                places = nil
            case 1:
                let placeCount = Int(try reader.u32())
                guard placeCount <= reader.remaining / 20 else { throw .corrupt("delta lists \(placeCount) places") }
                var list: [Place] = []
                list.reserveCapacity(placeCount)
                for _ in 0..<placeCount {
                    let place = Place(ordinal: try reader.u32(), least: Double(bitPattern: try reader.u64()),
                                      greatest: Double(bitPattern: try reader.u64()))
                    guard list.last.map({ $0.ordinal < place.ordinal }) ?? true,
                          place.least.isNaN == place.greatest.isNaN,
                          place.least.isNaN || place.least <= place.greatest else {
                        throw .corrupt("delta places of partition \(partition)")
                    }
                    list.append(place)
                }
                places = list
            default:
                throw .corrupt("delta place flag of partition \(partition)")
            }
            entries.append(Entry(partition: partition, file: file, valueIndexes: indexes, counts: counts,
                                 nulls: nulls, places: places))
        }
        guard reader.remaining == 0 else { throw .corrupt("\(reader.remaining) stray bytes in the delta") }
        return CatalogDelta(catalogChecksum: catalogChecksum, partitions: partitions, entries: entries)
    }

    /// The entry of `partition`, if the delta lists it.
    package func entry(partition: Int) -> Entry? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].partition < partition { low = middle + 1 } else { high = middle }
        }
        return low < entries.count && entries[low].partition == partition ? entries[low] : nil
    }
}
