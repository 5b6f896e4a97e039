/// The root of a snapshot: everything a reader needs, replaced atomically by each commit.
///
/// Stored as `manifest.qkm`, a small binary file read at every start:
/// `"QKMANIF2"`, `u32 version`, `u8 partitioning`, `u32 block rows`, `u64 generation`,
/// `u64 rows`, the partitions (`key, file, u64 rows, i64 min time, i64 max time, u64 bytes`),
/// the id-index buckets, the retired files, the load history's retention (revision 3: base
/// generation, base time, the generation ranges with a transaction file), the ``Catalog``
/// (revision 4: its file name, empty for none, and the checksum of its header), the ``TopRows``
/// magnitude projection (revision 6: its file name, empty for none, then its rows, time span,
/// bytes, threshold and partitions' hash), the tombstones per partition and the sync cursors
/// (revision 7: `u32 count` + a `u64` per partition, `u32 count` + key and value strings), the
/// ``CatalogDelta`` (revision 8, written only when there is one: its file name and checksum), then a
/// checksum of all of it. Revision 2 manifests (no history) are read as history starting now; revisions
/// 2 and 3 have no catalog. Strings are
/// `u16 length` + UTF-8. A flipped byte fails the checksum; a manifest that passes it is
/// still checked for order, spans and row totals before it is trusted.
package struct Manifest: Sendable, Equatable {
    package static let fileName = "manifest.qkm"
    /// The manifest revision this build writes (3 adds the load history, 4 the catalog, 5 the
    /// hashed id index of ``IdHashes``, which builds before it cannot read, 6 the magnitude
    /// projection, 7 the tombstone counts and sync cursors, 8 the catalog delta); it reads 2 to 8,
    /// and writes 8 only for a manifest with a catalog delta, so that older builds read the rest.
    package static let version = 8
    /// The store format (partition files, id index): v2 since the engine rewrite.
    package static let storeFormat = 2
    package static let magic: [UInt8] = Array("QKMANIF2".utf8)

    package var partitioning: Partitioning
    package var blockRows: Int
    /// Incremented by every commit; new files carry it in their names.
    package var generation: Int
    package var rows: Int
    /// Sorted by key (and so by time).
    package var partitions: [PartitionEntry]
    /// The events held as tombstones (status `deleted`), over every partition.
    package var tombstones: Int { partitions.reduce(0) { $0 + $1.deleted } }
    /// Per id-index bucket, its file under `ids/` (nil while empty).
    package var idBuckets: [String?]
    /// Files the last commit replaced, kept one more generation for readers still on it.
    package var retired: [String]
    /// Which loads' transactions are kept under `history/`.
    package var history = HistoryRetention()
    /// The store catalog's file under `partitions/`, nil while none is written (an empty store,
    /// an older manifest, or partitions without mag histograms).
    package var catalog: String?
    /// The checksum of the catalog's header, so that the manifest's checksum covers it.
    package var catalogChecksum: UInt64 = 0
    /// The catalog's delta file under `partitions/` (``CatalogDelta``): the partitions small
    /// commits replaced since the catalog was written; nil when the catalog is whole.
    package var catalogDelta: String?
    /// The checksum of the whole delta file.
    package var catalogDeltaChecksum: UInt64 = 0
    /// The magnitude projection of the partitions (``TopRows``), nil while none is written.
    package var top: TopRows?
    /// Each sync source's cursor, by key (the source and its filter), in key order. Committed
    /// with the rows it describes, so a crash can never leave the two out of step.
    package var cursors: [SyncCursorRecord] = []

    /// True when some partition holds an event whose status is `deleted` (a tombstone).
    package var holdsDeleted: Bool { partitions.contains { $0.deleted > 0 } }

    package static let idBucketCount = 64
    package static let defaultBlockRows = 65536

    package init(partitioning: Partitioning, blockRows: Int = Manifest.defaultBlockRows) {
        self.partitioning = partitioning
        self.blockRows = blockRows
        generation = 0
        rows = 0
        partitions = []
        idBuckets = Array(repeating: nil, count: Manifest.idBucketCount)
        retired = []
    }

    /// Paths, relative to the store, of every file this snapshot uses.
    package var liveFiles: Set<String> {
        var files = Set(partitions.map { "partitions/" + $0.file })
        for bucket in idBuckets { if let bucket { files.insert("ids/" + bucket) } }
        for g in history.generations { files.insert("history/" + HistoryFile.name(generation: g)) }
        if let catalog { files.insert("partitions/" + catalog) }
        if let catalogDelta { files.insert("partitions/" + catalogDelta) }
        if let top { files.insert("partitions/" + top.file) }
        return files
    }

    private static let partitioningCodes: [Partitioning] = [.day, .month, .year]

    package func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes.append(contentsOf: Manifest.magic)
        writer.u32(UInt32(catalogDelta == nil ? 7 : Manifest.version))
        writer.u8(UInt8(Manifest.partitioningCodes.firstIndex(of: partitioning) ?? 1))
        writer.u32(UInt32(blockRows))
        writer.u64(UInt64(generation))
        writer.u64(UInt64(rows))
        writer.u32(UInt32(partitions.count))
        for p in partitions {
            writer.string(p.key)
            writer.string(p.file)
            writer.u64(UInt64(p.rows))
            writer.i64(p.minTime)
            writer.i64(p.maxTime)
            writer.u64(UInt64(p.bytes))
        }
        writer.u32(UInt32(idBuckets.count))
        for b in idBuckets { writer.string(b ?? "") }
        writer.u32(UInt32(retired.count))
        for r in retired { writer.string(r) }
        history.encode(into: &writer)
        writer.string(catalog ?? "")
        writer.u64(catalogChecksum)
        if let top { top.encode(into: &writer) } else { writer.string("") }
        writer.u32(UInt32(partitions.count))
        for p in partitions { writer.u64(UInt64(p.deleted)) }
        writer.u32(UInt32(cursors.count))
        for c in cursors {
            writer.string(c.key)
            writer.longString(c.value)
        }
        if let catalogDelta {
            writer.string(catalogDelta)
            writer.u64(catalogDeltaChecksum)
        }
        writer.u64(Checksum.hash(writer.bytes))
        return writer.bytes
    }

    /// Reads and checks `manifest.qkm` at `path`.
    package static func read(path: String) throws(QuakeError) -> Manifest {
        let file = try MappedFile(path: path)
        // SAFETY: decode copies what it keeps out of the mapping, and withExtendedLifetime keeps `file` (the
        // mapping's owner) alive until it returns: an optimised build may otherwise release `file` after `file.bytes`.
        return try withExtendedLifetime(file) { () throws(QuakeError) in try decode(file.bytes, path: path) }
    }

    package static func decode(_ b: UnsafeRawBufferPointer, path: String) throws(QuakeError) -> Manifest {
        func bad(_ why: String) -> QuakeError { .corrupt(path, why) }
        // SAFETY: b.count >= 16 is checked before b[0..<8]; body and tail then lie in `b`.
        guard b.count >= 16, (0..<8).allSatisfy({ b[$0] == magic[$0] }) else {
            throw bad("not a quakes manifest (bad magic)")
        }
        let body = UnsafeRawBufferPointer(rebasing: b[0..<(b.count - 8)])
        var tail = ByteReader(b, at: b.count - 8)
        guard Checksum.hash(body) == (try tail.u64()) else { throw bad("manifest checksum mismatch") }
        var reader = ByteReader(body, at: 8)
        do throws(QuakeError) {
            let version = Int(try reader.u32())
            guard (2...Manifest.version).contains(version) else {
                throw QuakeError.unsupported("\(path): manifest version \(version) is not supported by this build")
            }
            let code = Int(try reader.u8())
            guard code < partitioningCodes.count else { throw bad("partitioning code \(code)") }
            var manifest = Manifest(partitioning: partitioningCodes[code], blockRows: Int(try reader.u32()))
            guard manifest.blockRows >= 1 else { throw bad("block rows \(manifest.blockRows)") }
            let gen = try reader.u64(), rows = try reader.u64()
            guard gen < 1 << 48, rows < 1 << 48 else {
                throw bad("generation \(gen) or row count \(rows) out of range")
            }
            manifest.generation = Int(gen)
            manifest.rows = Int(rows)
            let seen = try decodePartitions(&reader, into: &manifest, bad)
            let buckets = Int(try reader.u32())
            guard buckets == idBucketCount else { throw bad("\(buckets) id buckets") }
            for k in 0..<buckets {
                let key = try reader.string()
                guard key.isEmpty || Manifest.isPlainName(key) else { throw bad("id bucket \(k) names \(key)") }
                manifest.idBuckets[k] = key.isEmpty ? nil : key
            }
            let retired = Int(try reader.u32())
            guard retired <= reader.remaining / 2 else { throw bad("lists \(retired) retired files") }
            for _ in 0..<retired { manifest.retired.append(try reader.string()) }
            manifest.history = version == 2 ? HistoryRetention(startingAt: manifest.generation)
                : try HistoryRetention.decode(&reader, generation: manifest.generation)
            try decodeNamedFiles(&reader, version: version, seen: seen, into: &manifest, bad)
            if version >= 7 { try decodeRevision7(&reader, into: &manifest, bad) }
            if version >= 8 {
                let delta = try reader.string()
                guard Manifest.isPlainName(delta), manifest.catalog != nil, delta != manifest.catalog,
                      delta != manifest.top?.file, !manifest.partitions.contains(where: { $0.file == delta }) else {
                    throw bad("catalog delta \(delta)")
                }
                manifest.catalogDelta = delta
                manifest.catalogDeltaChecksum = try reader.u64()
            }
            guard reader.remaining == 0 else { throw bad("\(reader.remaining) stray bytes") }
            return manifest
        } catch {
            if error.kind == .corrupt { throw error.at(path) }
            throw error
        }
    }

    /// The partition list, checked (plain unique names, ordered times that fit their keys, rows
    /// that add up); returns the table of their names by hash.
    private static func decodePartitions(_ r: inout ByteReader, into m: inout Manifest,
                                         _ bad: (String) -> QuakeError) throws(QuakeError) -> IntTable {
        let count = Int(try r.u32())
        guard count <= r.remaining / 36 else { throw bad("lists \(count) partitions") }
        var total = 0
        // names by hash in a table of fixed types, not a Set or a sort: a one-shot query pays for
        // each new generic type it instantiates (a scan of every protocol conformance in the binary)
        var seen = IntTable(capacity: count)
        m.partitions.reserveCapacity(count)
        for i in 0..<count {
            let key = try r.string(), file = try r.string()
            let pr = try r.u64(), lo = try r.i64(), hi = try r.i64(), bytes = try r.u64()
            guard pr >= 1, pr < 1 << 40, bytes < 1 << 48, lo <= hi, Manifest.isPlainName(file) else {
                throw bad("partition \(i) (\(key)) has impossible values")
            }
            guard Timestamp.storable.contains(lo), Timestamp.storable.contains(hi) else {
                throw bad("partition \(key) has times outside years 0000-9999")
            }
            let span = m.partitioning.span(lo)
            guard hi < span.end else { throw bad("partition \(key) spans \(lo)...\(hi)") }
            guard key == m.partitioning.key(lo) else {
                throw bad("partition \(key) holds times of \(m.partitioning.key(lo))")
            }
            let hash = Manifest.nameHash(file)
            if seen.first(hash, where: { m.partitions[$0].file == file }) != nil {
                throw bad("file \(file) is listed twice")
            }
            seen.add(hash, i)
            if let last = m.partitions.last, last.maxTime >= lo || last.key == key {
                throw bad("partitions \(last.key) and \(key) out of order")
            }
            m.partitions.append(PartitionEntry(key: key, file: file, rows: Int(pr), minTime: lo,
                                               maxTime: hi, bytes: Int(bytes)))
            total += Int(pr)
        }
        guard total == m.rows else {
            throw bad("partitions hold \(total) rows, manifest says \(m.rows)")
        }
        return seen
    }

    /// The catalog's and the magnitude projection's file names (versions 4 and 6), checked
    /// against the partitions' names in `seen`.
    private static func decodeNamedFiles(_ r: inout ByteReader, version: Int, seen: IntTable, into m: inout Manifest,
                                         _ bad: (String) -> QuakeError) throws(QuakeError) {
        if version >= 4 {
            let catalogFile = try r.string()
            let catalogHash = Manifest.nameHash(catalogFile)
            let clash = seen.first(catalogHash) { m.partitions[$0].file == catalogFile } != nil
            guard catalogFile.isEmpty || (Manifest.isPlainName(catalogFile) && !clash) else {
                throw bad("catalog \(catalogFile)")
            }
            m.catalog = catalogFile.isEmpty ? nil : catalogFile
            m.catalogChecksum = try r.u64()
        }
        if version >= 6, let topRows = try TopRows.decode(&r) {
            let topHash = Manifest.nameHash(topRows.file)
            let clash = seen.first(topHash) { m.partitions[$0].file == topRows.file } != nil
            guard !clash, topRows.file != m.catalog else {
                throw bad("magnitude projection \(topRows.file)")
            }
            m.top = topRows
        }
    }

    /// The tombstone counts and the sync cursors.
    private static func decodeRevision7(_ r: inout ByteReader, into m: inout Manifest,
                                        _ bad: (String) -> QuakeError) throws(QuakeError) {
        guard Int(try r.u32()) == m.partitions.count else { throw bad("tombstone counts do not match the partitions") }
        for i in m.partitions.indices {
            let tombstones = try r.u64()
            guard tombstones <= UInt64(m.partitions[i].rows) else {
                throw bad("partition \(m.partitions[i].key) has \(tombstones) tombstones")
            }
            m.partitions[i].deleted = Int(tombstones)
        }
        let count = Int(try r.u32())
        guard count <= r.remaining / 6 else { throw bad("lists \(count) sync cursors") }
        for _ in 0..<count {
            let key = try r.string(), value = try r.longString()
            if let last = m.cursors.last, last.key >= key { throw bad("sync cursors out of order") }
            m.cursors.append(SyncCursorRecord(key: key, value: value))
        }
    }

    /// Sets (or, with nil, removes) the cursor under `key`, keeping the list in key order.
    package mutating func setCursor(_ key: String, _ value: String?) {
        cursors.removeAll { $0.key == key }
        if let value {
            cursors.append(SyncCursorRecord(key: key, value: value))
            cursors.sort { $0.key < $1.key }
        }
    }

    /// A hash of a file name's bytes, for tables of names (``IntTable``).
    package static func nameHash(_ s: String) -> UInt64 {
        var text = s
        // SAFETY: the UTF-8 pointer is used only inside this closure, and hash does not keep it.
        return text.withUTF8 { Checksum.hash(UnsafeRawBufferPointer($0)) }
    }

    /// A file name with no path separators or dot segments.
    package static func isPlainName(_ s: String) -> Bool {
        let utf8 = s.utf8
        return !utf8.isEmpty && utf8.count < 256 && !utf8.contains(UInt8(ascii: "/")) && s != "." && s != ".."
    }
}

/// One partition in a manifest: its file, row count and time span.
package struct PartitionEntry: Sendable, Equatable {
    package var key: String
    /// File name under `partitions/`.
    package var file: String
    package var rows: Int
    package var minTime: Int64
    package var maxTime: Int64
    /// Size of the partition file.
    package var bytes: Int
    /// Rows whose status is `deleted`: tombstones, left out of answers by default.
    package var deleted: Int

    package init(key: String, file: String, rows: Int, minTime: Int64, maxTime: Int64, bytes: Int, deleted: Int = 0) {
        self.deleted = deleted
        self.key = key
        self.file = file
        self.rows = rows
        self.minTime = minTime
        self.maxTime = maxTime
        self.bytes = bytes
    }
}

extension ByteWriter {
    package mutating func string(_ s: String) {
        let utf8 = Array(s.utf8.prefix(Int(UInt16.max)))
        // SAFETY: the closure copies the 2 bytes of a local value; the pointer does not escape it.
        withUnsafeBytes(of: UInt16(utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: utf8)
    }
}

/// One sync source's cursor in a manifest: an opaque value (the sync layer's JSON) by key.
package struct SyncCursorRecord: Sendable, Equatable {
    package var key: String
    package var value: String

    package init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

extension ByteWriter {
    /// A `u32` length and UTF-8: for values that may pass 64 KiB.
    package mutating func longString(_ s: String) {
        u32(UInt32(s.utf8.count))
        bytes.append(contentsOf: s.utf8)
    }
}

extension ByteReader {
    package mutating func longString() throws(QuakeError) -> String {
        let length = Int(try u32())
        try need(length)
        // SAFETY: need(length) checked pos + length <= bytes.count; `raw` is dropped when this call returns.
        let raw = UnsafeRawBufferPointer(rebasing: bytes[pos..<(pos + length)])
        pos += length
        let text = String(decoding: raw, as: UTF8.self)
        guard text.utf8.count == length, text.utf8.elementsEqual(raw) else {
            throw .corrupt("a sync cursor is not valid UTF-8")
        }
        return text
    }

    package mutating func string() throws(QuakeError) -> String {
        try need(2)
        // SAFETY: need(2) and need(length) check each read lies in `bytes`; loadUnaligned needs no alignment.
        let length = Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: pos, as: UInt16.self)))
        pos += 2
        try need(length)
        let raw = UnsafeRawBufferPointer(rebasing: bytes[pos..<(pos + length)])
        pos += length
        // decoded straight from the buffer, and valid exactly when decoding repaired nothing: the
        // generic `String(validating:as:)` and a copy to an array cost a metadata lookup each, a
        // thousand times for a manifest
        let text = String(decoding: raw, as: UTF8.self)
        guard text.utf8.count == length, text.utf8.elementsEqual(raw) else {
            throw .corrupt("a name is not valid UTF-8")
        }
        return text
    }
}
