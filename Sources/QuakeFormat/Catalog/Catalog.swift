import QuakeSupport
import Foundation
import Synchronization

/// The store-level catalog: one file per snapshot, `partitions/catalog.g<generation>.qkc`, that
/// answers magnitude counts over whole partitions without opening any of them.
///
/// It holds, for the store's distinct magnitudes, the running count of rows holding each value
/// over the partitions in manifest order: row `i` counts the rows of partitions `0..<i`, so the
/// partitions `a..<b` hold `row[b] - row[a]`, and a count over any run of partitions reads
/// two rows whatever the store's size.
///
/// It also holds, per partition, the localities of its rows with their magnitude bounds
/// (``Places``), so a place search top-N by magnitude opens only the partitions that can place.
///
/// ```
/// "QKCATLG3", u32 partitions P, u32 distinct magnitudes V,
/// P partition file names (u16 length + UTF-8), V f64 magnitudes ascending,
/// P + 1 u64 row checksums, u64 place section length, u64 its checksum
///                                               -- the header; its checksum is in the manifest
/// the place section                             -- ``Places``
/// P + 1 rows of V + 1 u32 running counts        -- one per magnitude, then nulls
/// ```
/// The manifest carries the header's checksum, the header each row's and the place section's;
/// each is checked before its first use, and a row's counts must add up to the rows the manifest
/// gives its partitions. A store past 2^32 - 1 rows of a value (counts that u32s cannot hold) is
/// written as `QKCATLG2`, the same with u64 counts; catalogs written before the place section
/// (`QKCATLG1`, u64 counts) have neither its length nor its checksum, and give no ``places()``.
/// u32 counts halve what a small commit writes and hashes: the running counts after a replaced
/// partition all change, and the file is written again whole.
package final class Catalog: Sendable {
    package static let magic: [UInt8] = Array("QKCATLG3".utf8)
    /// The same with u64 running counts: written when a count passes what a u32 holds.
    private static let magicV2: [UInt8] = Array("QKCATLG2".utf8)
    private static let magicV1: [UInt8] = Array("QKCATLG1".utf8)
    package static let fileExtension = "qkc"
    /// Past this size (rows times magnitudes, in bytes) no catalog is written: the queries
    /// read the partitions' own histograms instead.
    package static let sizeLimit = 64 << 20

    package static func fileName(generation: Int) -> String { "catalog.g\(generation).\(fileExtension)" }

    package let path: String
    /// The distinct non-null magnitudes, ascending.
    package let values: [Double]
    package let partitions: Int
    /// The partition files it describes, in manifest order: those its file lists, with the
    /// ones its ``delta`` replaced.
    package let files: [String]
    /// The partition files its own file lists.
    package let storedFiles: [String]
    /// The checksum of its header (the manifest's).
    package let checksum: UInt64
    /// The partitions small commits replaced since it was written, laid over its counts and
    /// place summaries by ``row(_:)``, ``histogram(partition:)`` and ``places()``.
    package let delta: CatalogDelta?
    private let file: MappedFile
    private let rowsOffset: Int
    /// Bytes of one running count: 4 (`QKCATLG3`) or 8 (`QKCATLG1` and `QKCATLG2`).
    let countBytes: Int
    /// Each row's checksum, as the header holds them.
    let rowChecksums: [UInt64]
    private let placesRange: Range<Int>?
    private let placesChecksum: UInt64
    /// What first uses filled in: the rows whose checksum was checked, the parsed place section.
    private struct State {
        var checked: [Bool]
        var parsedPlaces: Places?
        /// Per partition of the delta, ascending, the change of counts that it and the delta's
        /// partitions before it make together: the magnitudes' (then the nulls') that are not zero.
        var corrections: [(partition: Int, changes: [(index: Int, change: Int64)])]?
    }
    private let state: Mutex<State>

    /// Maps the catalog at `path` and checks its header against `checksum` (from the manifest)
    /// and its partition list, with `delta`'s replacements, against `files` (when given: a
    /// commit reading the catalog of the snapshot before takes the list the catalog holds).
    package convenience init(path: String, checksum: UInt64, files expected: [String]?,
                             delta: CatalogDelta? = nil) throws(QuakeError) {
        // a read past a damaged length or a name of bad bytes names the file too
        do throws(QuakeError) {
            try self.init(parsing: path, checksum: checksum, files: expected, delta: delta)
        } catch {
            throw error.kind == .corrupt ? error.at(path) : error
        }
    }

    private init(parsing path: String, checksum: UInt64, files expected: [String]?,
                 delta: CatalogDelta?) throws(QuakeError) {
        self.path = path
        self.checksum = checksum
        self.delta = delta
        file = try MappedFile(path: path)
        let fileBytes = file.bytes
        func bad(_ why: String) -> QuakeError { .corrupt(path, why) }
        // SAFETY: `fileBytes` is the whole mapping, which `file` keeps alive; the magic's 8 bytes are read
        // only once fileBytes.count >= 16 holds (the && short-circuits), and ByteReader checks every read.
        guard fileBytes.count >= 16, (0..<7).allSatisfy({ fileBytes[$0] == Catalog.magic[$0] }),
              [Catalog.magic[7], Catalog.magicV2[7], Catalog.magicV1[7]].contains(fileBytes[7]) else {
            throw bad("not a quakes catalog (bad magic)")
        }
        // the place section since version 2, u32 counts in version 3
        let v2 = fileBytes[7] != Catalog.magicV1[7]
        countBytes = fileBytes[7] == Catalog.magic[7] ? 4 : 8
        var reader = ByteReader(fileBytes, at: 8)
        let partitionCount = Int(try reader.u32()), magnitudeCount = Int(try reader.u32())
        guard partitionCount == expected?.count ?? partitionCount, partitionCount <= fileBytes.count / 2,
              magnitudeCount <= fileBytes.count / 8 else {
            throw bad("lists \(partitionCount) partitions and \(magnitudeCount) magnitudes")
        }
        storedFiles = try Catalog.readFiles(&reader, count: partitionCount, expected: expected, delta: delta, bad)
        var layered = storedFiles
        if let delta {
            guard delta.catalogChecksum == checksum, delta.partitions == partitionCount else {
                throw bad("the delta lies over another catalog")
            }
            for entry in delta.entries {
                guard entry.valueIndexes.allSatisfy({ $0 < magnitudeCount }) else {
                    throw .corrupt(path, "the delta names a magnitude the catalog lacks")
                }
                layered[entry.partition] = entry.file
            }
        }
        files = layered
        let vs = try reader.raw(magnitudeCount, as: UInt64.self).map { Double(bitPattern: UInt64(littleEndian: $0)) }
        let sums = try reader.raw(partitionCount + 1, as: UInt64.self).map { UInt64(littleEndian: $0) }
        var placesLength = 0
        if v2 {
            placesLength = Int(truncatingIfNeeded: try reader.u64())
            placesChecksum = try reader.u64()
        } else {
            placesChecksum = 0
        }
        // SAFETY: the reader's position never passes the end of `fileBytes`, the mapping `file` owns.
        guard Checksum.hash(UnsafeRawBufferPointer(rebasing: fileBytes[0..<reader.pos])) == checksum else {
            throw bad("catalog checksum mismatch")
        }
        if v2 {
            guard placesLength >= 0, placesLength <= reader.remaining else {
                throw bad("place section of \(placesLength) bytes")
            }
            placesRange = reader.pos..<(reader.pos + placesLength)
            reader.pos += placesLength
        } else {
            placesRange = nil
        }
        guard zip(vs, vs.dropFirst()).allSatisfy({ $0 < $1 }), !vs.contains(where: \.isNaN) else {
            throw bad("magnitudes out of order")
        }
        guard reader.remaining == (partitionCount + 1) * (magnitudeCount + 1) * countBytes else {
            throw bad("\(reader.remaining) bytes of counts")
        }
        values = vs
        partitions = partitionCount
        rowsOffset = reader.pos
        rowChecksums = sums
        state = Mutex(State(checked: Array(repeating: false, count: partitionCount + 1)))
    }

    /// The catalog's list of `count` partition files, which must be `expected` when given.
    /// The delta's partitions must be the expected ones instead.
    private static func readFiles(_ reader: inout ByteReader, count: Int, expected: [String]?, delta: CatalogDelta?,
                                  _ bad: (String) -> QuakeError) throws(QuakeError) -> [String] {
        var listed: [String] = []
        listed.reserveCapacity(count)
        for index in 0..<count {
            let name = try reader.string()
            if let expected {
                let replaced = delta?.entry(partition: index)?.file
                guard expected[index] == replaced ?? name else { throw bad("does not list the manifest's partitions") }
            }
            listed.append(name)
        }
        return listed
    }

    /// Running counts before partition `i` (`0...partitions`): one per magnitude, then nulls,
    /// with the changes of the delta's partitions before `i`.
    /// - Complexity: O(magnitudes + the delta's partitions); the checksums of the rows read are
    ///   checked on first use.
    package func row(_ i: Int) throws(QuakeError) -> [UInt64] {
        var counts = try storedRow(i)
        guard delta != nil else { return counts }
        let corrections = try corrections()
        // the changes of every delta partition before `i` are summed in the last one's
        guard let last = corrections.lastIndex(where: { $0.partition < i }) else { return counts }
        for (index, change) in corrections[last].changes {
            let (moved, overflow) = Int64(truncatingIfNeeded: counts[index]).addingReportingOverflow(change)
            guard counts[index] < 1 << 62, !overflow, moved >= 0 else {
                throw .corrupt(path, "the delta's counts fall below zero before partition \(i)")
            }
            counts[index] = UInt64(moved)
        }
        return counts
    }

    /// Per partition of the delta, ascending, the change of counts that it and the delta's
    /// partitions before it make (its counts there less the catalog's, summed), where not zero.
    private func corrections() throws(QuakeError) -> [(partition: Int, changes: [(index: Int, change: Int64)])] {
        if let cached = state.locked({ $0.corrections }) { return cached }
        var out: [(partition: Int, changes: [(index: Int, change: Int64)])] = []
        var running = [Int64](repeating: 0, count: values.count + 1)
        for entry in (delta?.entries ?? []).sorted(by: { $0.partition < $1.partition }) {
            let stored = try storedHistogramCounts(partition: entry.partition)
            // each term is under 2^48 (checked where it is read); a delta of many partitions still
            // cannot trap: a sum past Int64 is damage
            var overflow = false
            func add(_ index: Int, _ term: Int64) {
                let (sum, over) = running[index].addingReportingOverflow(term)
                running[index] = sum
                overflow = overflow || over
            }
            for (index, count) in stored.enumerated() { add(index, -Int64(truncatingIfNeeded: count)) }
            for (index, count) in zip(entry.valueIndexes, entry.counts) { add(index, Int64(truncatingIfNeeded: count)) }
            add(values.count, Int64(truncatingIfNeeded: entry.nulls))
            guard !overflow else { throw .corrupt(path, "the delta's counts overflow at partition \(entry.partition)") }
            let changes = running.indices.filter { running[$0] != 0 }.map { (index: $0, change: running[$0]) }
            out.append((entry.partition, changes))
        }
        state.locked { $0.corrections = out }
        return out
    }

    /// Partition `index`'s count of each magnitude (then nulls) as the catalog's own rows give it.
    func storedHistogramCounts(partition index: Int) throws(QuakeError) -> [UInt64] {
        let before = try storedRow(index)
        let after = try storedRow(index + 1)
        var counts = [UInt64](repeating: 0, count: before.count)
        for k in counts.indices {
            guard after[k] >= before[k], after[k] - before[k] < 1 << 48 else {
                throw .corrupt(path, "running counts fall at partition \(index)")
            }
            counts[k] = after[k] - before[k]
        }
        return counts
    }

    /// Running counts before partition `i` as the catalog's file holds them (no delta).
    /// - Complexity: O(magnitudes); the row's checksum is checked on first use.
    func storedRow(_ i: Int) throws(QuakeError) -> [UInt64] {
        guard i >= 0, i <= partitions else { throw .corrupt(path, "no row \(i)") }
        let width = (values.count + 1) * countBytes
        let start = rowsOffset + i * width
        // SAFETY: init checked that the file ends with (partitions + 1) rows of `width` bytes from
        // rowsOffset, and 0 <= i <= partitions; `file` keeps the mapping alive.
        assert(start + width <= file.bytes.count)
        let bytes = UnsafeRawBufferPointer(rebasing: file.bytes[start..<(start + width)])
        if !state.locked({ $0.checked[i] }) {
            guard Checksum.hash(bytes) == rowChecksums[i] else { throw .corrupt(path, "row \(i): checksum mismatch") }
            state.locked { $0.checked[i] = true }
        }
        var reader = ByteReader(bytes)
        if countBytes == 4 {
            return try reader.raw(values.count + 1, as: UInt32.self).map { UInt64(UInt32(littleEndian: $0)) }
        }
        return try reader.raw(values.count + 1, as: UInt64.self).map { UInt64(littleEndian: $0) }
    }

    /// Checks every running-count row of the file against its checksum, without decoding any:
    /// a commit that lays a delta over the catalog relies on all of them.
    /// - Complexity: one pass of checksums over the counts.
    package func checkStoredRows() throws(QuakeError) {
        let width = (values.count + 1) * countBytes
        let unchecked = state.locked { shared in (0...partitions).filter { !shared.checked[$0] } }
        for i in unchecked {
            let start = rowsOffset + i * width
            // SAFETY: init checked that the file ends with (partitions + 1) rows of `width` bytes
            // from rowsOffset, and 0 <= i <= partitions; `file` keeps the mapping alive.
            assert(start + width <= file.bytes.count)
            let row = UnsafeRawBufferPointer(rebasing: file.bytes[start..<(start + width)])
            guard Checksum.hash(row) == rowChecksums[i]
            else { throw .corrupt(path, "row \(i): checksum mismatch") }
        }
        state.locked { shared in for i in unchecked { shared.checked[i] = true } }
    }

    /// The catalog file's size.
    package var fileBytes: Int { file.bytes.count }

    /// The index of magnitude `value` in ``values``; nil when the catalog does not list it.
    /// - Complexity: O(log magnitudes).
    package func valueIndex(_ value: Double) -> Int? {
        var low = 0
        var high = values.count
        while low < high {
            let middle = (low + high) / 2
            if values[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < values.count && values[low] == value ? low : nil
    }

    /// Bytes of the running counts, at the end of the file.
    package var rowsLength: Int { (partitions + 1) * (values.count + 1) * countBytes }

    /// The running counts' bytes as stored (every row, unchecked), for a patch that checks the
    /// rows it changes and copies the others with their checksums.
    func storedRowBytes() -> [UInt8] {
        // SAFETY: init checked that the file ends with rowsLength bytes of rows from rowsOffset;
        // `file` keeps the mapping alive for the copy.
        assert(rowsOffset + rowsLength <= file.bytes.count)
        return Array(UnsafeRawBufferPointer(rebasing: file.bytes[rowsOffset..<(rowsOffset + rowsLength)]))
    }

    /// The place section's bytes as stored, checksum-checked; nil in a catalog without one.
    func storedPlaceSection() throws(QuakeError) -> [UInt8]? {
        guard let range = placesRange else { return nil }
        // SAFETY: init checked that the section lies inside the file; `file` keeps it mapped.
        let body = UnsafeRawBufferPointer(rebasing: file.bytes[range])
        guard Checksum.hash(body) == placesChecksum else { throw .corrupt(path, "place section: checksum mismatch") }
        return Array(body)
    }

    /// The place section with the delta's summaries laid over it; nil in a catalog without one.
    package func places() throws(QuakeError) -> Places? {
        guard let stored = try storedPlaces() else { return nil }
        guard let delta else { return stored }
        do throws(QuakeError) {
            return try stored.overridden(by: delta)
        } catch {
            throw error.at(path)
        }
    }

    /// The place section as the file holds it, checked and parsed on first use; nil in a
    /// catalog without one.
    package func storedPlaces() throws(QuakeError) -> Places? {
        guard let range = placesRange else { return nil }
        if let cached = state.locked({ $0.parsedPlaces }) { return cached }
        // SAFETY: init checked that the section lies inside the file; `file` keeps it mapped.
        let body = UnsafeRawBufferPointer(rebasing: file.bytes[range])
        guard Checksum.hash(body) == placesChecksum else { throw .corrupt(path, "place section: checksum mismatch") }
        let parsed: Places
        do throws(QuakeError) {
            parsed = try Places(file, range: range, partitions: partitions)
        } catch {
            throw error.at(path)
        }
        state.locked { $0.parsedPlaces = parsed }
        return parsed
    }

    /// One partition's magnitudes: its distinct values ascending, the rows holding each, and
    /// its rows without a magnitude.
    package struct Histogram: Sendable, Equatable {
        package var values: [Double]
        package var counts: [UInt64]
        package var nulls: UInt64

        package init(values: [Double], counts: [UInt64], nulls: UInt64) {
            self.values = values
            self.counts = counts
            self.nulls = nulls
        }

        /// The partition's histogram summed over its granules; nil without mag histograms, or
        /// when they count more rows than the partition holds.
        package init?(_ idx: GranuleIndex) {
            guard idx.hasMagHistogram else { return nil }
            values = idx.magValues
            counts = Array(repeating: 0, count: values.count)
            var nonNull: UInt64 = 0
            for e in idx.magEntries {
                counts[Int(e & 0xFFFF)] += UInt64(e >> 16)
                nonNull += UInt64(e >> 16)
            }
            guard nonNull <= UInt64(idx.rows) else { return nil }
            nulls = UInt64(idx.rows) - nonNull
        }
    }

    /// The catalog bytes for partitions' histograms and place summaries in manifest order, and
    /// the header's checksum; nil when the counts would pass ``sizeLimit``. Place summaries
    /// that would take the file past it are left out (every partition then reads as unknown).
    package static func encode(files: [String], histograms: [Histogram],
                               places: [PlaceSummary?]) -> (bytes: [UInt8], checksum: UInt64)? {
        let values = Array(Set(histograms.flatMap(\.values))).sorted()
        let width = values.count + 1
        guard (files.count + 1) * width * 8 <= sizeLimit else { return nil }
        let section = Places.encode(places.count == files.count ? places : Array(repeating: nil, count: files.count))
        var running: [UInt64] = Array(repeating: 0, count: width)
        var rows = running
        rows.reserveCapacity((files.count + 1) * width)
        for h in histograms {
            var index = 0
            for (v, c) in zip(h.values, h.counts) {
                while values[index] < v { index += 1 }
                running[index] += c
            }
            running[values.count] += h.nulls
            rows.append(contentsOf: running)
        }
        return finish(files: files, values: values, section: section) { section in
            encode(files: files, values: values, rows: rows, section: section)
        }
    }

    /// Bytes a running count takes for `rows`, the running counts ((files + 1) rows of values + 1
    /// counts): 4 when every count fits a u32 (the last row holds the greatest, as counts only grow), else 8.
    static func countBytes(_ rows: [UInt64], width: Int) -> Int {
        rows.suffix(width).allSatisfy { $0 <= UInt64(UInt32.max) } ? 4 : 8
    }

    /// The catalog bytes of running counts `rows` ((files + 1) rows of values + 1 counts) and
    /// place section `section`, and the header's checksum.
    static func encode(files: [String], values: [Double], rows: [UInt64],
                       section: [UInt8]) -> (bytes: [UInt8], checksum: UInt64) {
        let width = values.count + 1
        let countBytes = Catalog.countBytes(rows, width: width)
        let rowLength = width * countBytes
        var body = [UInt8](repeating: 0, count: rows.count * countBytes)
        var checksums: [UInt64] = []
        checksums.reserveCapacity(files.count + 1)
        // SAFETY: body holds rows.count counts of countBytes each, so every store at k * countBytes
        // lies inside it, as does every row's range hashed; `raw` does not escape the closure.
        body.withUnsafeMutableBytes { raw in
            for (k, count) in rows.enumerated() {
                if countBytes == 4 {
                    let narrow = UInt32(truncatingIfNeeded: count).littleEndian
                    raw.storeBytes(of: narrow, toByteOffset: k * 4, as: UInt32.self)
                } else {
                    raw.storeBytes(of: count.littleEndian, toByteOffset: k * 8, as: UInt64.self)
                }
            }
            for i in 0...files.count {
                let row = UnsafeRawBufferPointer(rebasing: raw[(i * rowLength)..<((i + 1) * rowLength)])
                checksums.append(Checksum.hash(row))
            }
        }
        return encode(files: files, values: values, rowBytes: body, countBytes: countBytes, rowChecksums: checksums,
                      section: section)
    }

    /// The catalog bytes of the running counts' bytes `rowBytes` (little-endian, `countBytes`
    /// each) with each row's checksum, and place section `section`; and the header's checksum.
    static func encode(files: [String], values: [Double], rowBytes: [UInt8], countBytes: Int,
                       rowChecksums: [UInt64], section: [UInt8]) -> (bytes: [UInt8], checksum: UInt64) {
        var writer = ByteWriter()
        writer.bytes.append(contentsOf: countBytes == 4 ? magic : magicV2)
        writer.u32(UInt32(files.count))
        writer.u32(UInt32(values.count))
        for f in files { writer.string(f) }
        for v in values { writer.u64(v.bitPattern) }
        for sum in rowChecksums { writer.u64(sum) }
        writer.u64(UInt64(section.count))
        // SAFETY: the closure reads only `section`'s bytes.
        writer.u64(section.withUnsafeBytes { Checksum.hash($0) })
        let checksum = Checksum.hash(writer.bytes)
        writer.bytes.reserveCapacity(writer.bytes.count + section.count + rowBytes.count)
        writer.bytes.append(contentsOf: section)
        writer.bytes.append(contentsOf: rowBytes)
        return (writer.bytes, checksum)
    }
}
