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
/// (revision 7: `u32 count` + a `u64` per partition, `u32 count` + key and value strings), then a checksum
/// of all of it. Revision 2 manifests (no history) are read as history starting now; revisions
/// 2 and 3 have no catalog. Strings are
/// `u16 length` + UTF-8. A flipped byte fails the checksum; a manifest that passes it is
/// still checked for order, spans and row totals before it is trusted.
package struct Manifest: Sendable, Equatable {
    package static let fileName = "manifest.qkm"
    /// The manifest revision this build writes (3 adds the load history, 4 the catalog, 5 the
    /// hashed id index of ``IdHashes``, which builds before it cannot read, 6 the magnitude
    /// projection, 7 the tombstone counts and sync cursors); it reads 2 to 7.
    package static let version = 7
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
        var s = Set(partitions.map { "partitions/" + $0.file })
        for b in idBuckets { if let b { s.insert("ids/" + b) } }
        for g in history.generations { s.insert("history/" + HistoryFile.name(generation: g)) }
        if let catalog { s.insert("partitions/" + catalog) }
        if let top { s.insert("partitions/" + top.file) }
        return s
    }

    private static let partitioningCodes: [Partitioning] = [.day, .month, .year]

    package func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.bytes.append(contentsOf: Manifest.magic)
        w.u32(UInt32(Manifest.version))
        w.u8(UInt8(Manifest.partitioningCodes.firstIndex(of: partitioning) ?? 1))
        w.u32(UInt32(blockRows))
        w.u64(UInt64(generation))
        w.u64(UInt64(rows))
        w.u32(UInt32(partitions.count))
        for p in partitions {
            w.string(p.key); w.string(p.file)
            w.u64(UInt64(p.rows)); w.i64(p.minTime); w.i64(p.maxTime); w.u64(UInt64(p.bytes))
        }
        w.u32(UInt32(idBuckets.count))
        for b in idBuckets { w.string(b ?? "") }
        w.u32(UInt32(retired.count))
        for r in retired { w.string(r) }
        history.encode(into: &w)
        w.string(catalog ?? "")
        w.u64(catalogChecksum)
        if let top { top.encode(into: &w) } else { w.string("") }
        w.u32(UInt32(partitions.count))
        for p in partitions { w.u64(UInt64(p.deleted)) }
        w.u32(UInt32(cursors.count))
        for c in cursors { w.string(c.key); w.longString(c.value) }
        w.u64(Checksum.hash(w.bytes))
        return w.bytes
    }

    /// Reads and checks `manifest.qkm` at `path`.
    package static func read(path: String) throws(QuakeError) -> Manifest {
        let f = try MappedFile(path: path)
        // SAFETY: decode copies what it keeps out of the mapping, and withExtendedLifetime keeps `f` (the
        // mapping's owner) alive until it returns: an optimised build may otherwise release `f` after `f.bytes`.
        return try withExtendedLifetime(f) { () throws(QuakeError) in try decode(f.bytes, path: path) }
    }

    package static func decode(_ b: UnsafeRawBufferPointer, path: String) throws(QuakeError) -> Manifest {
        func bad(_ why: String) -> QuakeError { .corrupt(path, why) }
        // SAFETY: b.count >= 16 is checked before b[0..<8]; body and tail then lie in `b`.
        guard b.count >= 16, (0..<8).allSatisfy({ b[$0] == magic[$0] }) else { throw bad("not a quakes manifest (bad magic)") }
        let body = UnsafeRawBufferPointer(rebasing: b[0..<(b.count - 8)])
        var tail = ByteReader(b, at: b.count - 8)
        guard Checksum.hash(body) == (try tail.u64()) else { throw bad("manifest checksum mismatch") }
        var r = ByteReader(body, at: 8)
        do throws(QuakeError) {
            let version = Int(try r.u32())
            guard (2...Manifest.version).contains(version) else {
                throw QuakeError.unsupported("\(path): manifest version \(version) is not supported by this build")
            }
            let code = Int(try r.u8())
            guard code < partitioningCodes.count else { throw bad("partitioning code \(code)") }
            var m = Manifest(partitioning: partitioningCodes[code], blockRows: Int(try r.u32()))
            guard m.blockRows >= 1 else { throw bad("block rows \(m.blockRows)") }
            let gen = try r.u64(), rows = try r.u64()
            guard gen < 1 << 48, rows < 1 << 48 else { throw bad("generation \(gen) or row count \(rows) out of range") }
            m.generation = Int(gen)
            m.rows = Int(rows)
            let n = Int(try r.u32())
            guard n <= r.remaining / 36 else { throw bad("lists \(n) partitions") }
            var total = 0
            // names by hash in a table of fixed types, not a Set or a sort: a one-shot query pays for
            // each new generic type it instantiates (a scan of every protocol conformance in the binary)
            var seen = IntTable(capacity: n)
            m.partitions.reserveCapacity(n)
            for i in 0..<n {
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
                guard key == m.partitioning.key(lo) else { throw bad("partition \(key) holds times of \(m.partitioning.key(lo))") }
                let h = Manifest.nameHash(file)
                if seen.first(h, where: { m.partitions[$0].file == file }) != nil {
                    throw bad("file \(file) is listed twice")
                }
                seen.add(h, i)
                if let last = m.partitions.last, last.maxTime >= lo || last.key == key {
                    throw bad("partitions \(last.key) and \(key) out of order")
                }
                m.partitions.append(PartitionEntry(key: key, file: file, rows: Int(pr), minTime: lo, maxTime: hi, bytes: Int(bytes)))
                total += Int(pr)
            }
            guard total == m.rows else { throw bad("partitions hold \(total) rows, manifest says \(m.rows)") }
            let buckets = Int(try r.u32())
            guard buckets == idBucketCount else { throw bad("\(buckets) id buckets") }
            for k in 0..<buckets {
                let s = try r.string()
                guard s.isEmpty || Manifest.isPlainName(s) else { throw bad("id bucket \(k) names \(s)") }
                m.idBuckets[k] = s.isEmpty ? nil : s
            }
            let retired = Int(try r.u32())
            guard retired <= r.remaining / 2 else { throw bad("lists \(retired) retired files") }
            for _ in 0..<retired { m.retired.append(try r.string()) }
            m.history = version == 2 ? HistoryRetention(startingAt: m.generation)
                : try HistoryRetention.decode(&r, generation: m.generation)
            if version >= 4 {
                let c = try r.string()
                let clash = seen.first(Manifest.nameHash(c)) { m.partitions[$0].file == c } != nil
                guard c.isEmpty || (Manifest.isPlainName(c) && !clash) else { throw bad("catalog \(c)") }
                m.catalog = c.isEmpty ? nil : c
                m.catalogChecksum = try r.u64()
            }
            if version >= 6, let t = try TopRows.decode(&r) {
                let clash = seen.first(Manifest.nameHash(t.file)) { m.partitions[$0].file == t.file } != nil
                guard !clash, t.file != m.catalog else { throw bad("magnitude projection \(t.file)") }
                m.top = t
            }
            if version >= 7 { try decodeRevision7(&r, into: &m, bad) }
            guard r.remaining == 0 else { throw bad("\(r.remaining) stray bytes") }
            return m
        } catch {
            if error.kind == .corrupt { throw error.at(path) }
            throw error
        }
    }

    /// The tombstone counts and the sync cursors.
    private static func decodeRevision7(_ r: inout ByteReader, into m: inout Manifest,
                                        _ bad: (String) -> QuakeError) throws(QuakeError) {
        guard Int(try r.u32()) == m.partitions.count else { throw bad("tombstone counts do not match the partitions") }
        for i in m.partitions.indices {
            let d = try r.u64()
            guard d <= UInt64(m.partitions[i].rows) else {
                throw bad("partition \(m.partitions[i].key) has \(d) tombstones")
            }
            m.partitions[i].deleted = Int(d)
        }
        let n = Int(try r.u32())
        guard n <= r.remaining / 6 else { throw bad("lists \(n) sync cursors") }
        for _ in 0..<n {
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
        var s = s
        // SAFETY: the UTF-8 pointer is used only inside this closure, and hash does not keep it.
        return s.withUTF8 { Checksum.hash(UnsafeRawBufferPointer($0)) }
    }

    /// A file name with no path separators or dot segments.
    package static func isPlainName(_ s: String) -> Bool {
        let u = s.utf8
        return !u.isEmpty && u.count < 256 && !u.contains(UInt8(ascii: "/")) && s != "." && s != ".."
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
        let u = Array(s.utf8.prefix(Int(UInt16.max)))
        // SAFETY: the closure copies the 2 bytes of a local value; the pointer does not escape it.
        withUnsafeBytes(of: UInt16(u.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: u)
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
        let n = Int(try u32())
        try need(n)
        // SAFETY: need(n) checked pos + n <= bytes.count; `b` is dropped when this call returns.
        let b = UnsafeRawBufferPointer(rebasing: bytes[pos..<(pos + n)])
        pos += n
        let s = String(decoding: b, as: UTF8.self)
        guard s.utf8.count == n, s.utf8.elementsEqual(b) else { throw .corrupt("a sync cursor is not valid UTF-8") }
        return s
    }

    package mutating func string() throws(QuakeError) -> String {
        try need(2)
        // SAFETY: need(2) and need(n) check each read lies in `bytes`; loadUnaligned needs no alignment.
        let n = Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: pos, as: UInt16.self)))
        pos += 2
        try need(n)
        let b = UnsafeRawBufferPointer(rebasing: bytes[pos..<(pos + n)])
        pos += n
        // decoded straight from the buffer, and valid exactly when decoding repaired nothing: the
        // generic `String(validating:as:)` and a copy to an array cost a metadata lookup each, a
        // thousand times for a manifest
        let s = String(decoding: b, as: UTF8.self)
        guard s.utf8.count == n, s.utf8.elementsEqual(b) else { throw .corrupt("a name is not valid UTF-8") }
        return s
    }
}
