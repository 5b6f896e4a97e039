import Foundation
import Synchronization

/// A history section whose inserted ids are those of the partition file its load wrote.
///
/// A load that writes a partition whole (a partition the store did not hold, every row new)
/// would otherwise repeat that file's id column in its transaction: 54 MB of a 527 MB store
/// after a first load of 10 M events. Such a section stores a marker instead of the list
/// (``marker`` as the list's raw size, 0 as its compressed size), and its ids are read from
/// `partitions/KEY.gN.qkp`, the file generation `N` wrote for key `KEY`.
///
/// A later load that replaces that file copies its id column first, its encoded chunks as they
/// are (no id decoded, sorted or compressed again), to `history/tx.gN.KEY.qki`
/// (``preserve(retired:history:storePath:)``), before the commit that retires the file. Garbage
/// collection keeps every `tx.gN.*` file of a kept transaction, and drops them with it.
///
/// Copy layout (`"QKHIDS02"`): `u64 count`, `u64 chunks`, per chunk `u64 codec`, `u64 rows`,
/// `u64 length`, `u64 checksum` of its bytes, then `u64 checksum` of all before it, then the
/// chunks' bytes one after another. The first layout (`"QKHIDS01"`: `u64 count`, `u64 raw
/// size`, `u64 compressed size`, `u64 checksum`, then the ids sorted as a ``HistoryIdList``) is
/// still read; it cost a commit the sort and compression of every id of each partition it
/// rewrote for the first time (9 % of a one-event load on 10 M rows).
package enum HistoryReference {
    /// The raw size that marks an inserted list as a reference.
    package static let marker = UInt64.max
    package static let magic: [UInt8] = Array("QKHIDS02".utf8)
    /// The first copy layout's magic: the ids as a sorted list.
    package static let listMagic: [UInt8] = Array("QKHIDS01".utf8)
    package static let fileExtension = "qki"

    /// The partition file generation `g` wrote for `key`.
    package static func partitionFile(key: String, generation g: Int) -> String {
        "\(key).g\(g).\(PartitionFile.fileExtension)"
    }

    /// Where the copy of that file's ids goes once the file is retired.
    package static func copyPath(store: String, generation g: Int, key: String) -> String {
        store + "/history/tx.g\(g).\(key).\(fileExtension)"
    }

    /// The generation a history file name (`tx.gN.qkh`, `tx.gN.KEY.qki`) belongs to.
    package static func generation(ofHistoryFile name: String) -> Int? {
        guard name.hasPrefix("tx.g") else { return nil }
        let digits = name.dropFirst(4).prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, name.dropFirst(4 + digits.count).first == "." else { return nil }
        return Int(digits)
    }

    /// The ids of the partition `key` written by generation `g` (`count` of them), sorted:
    /// from the partition file while it exists, else from its copy.
    /// - Throws: `.corrupt` when neither reads whole, or the count differs.
    package static func ids(store: String, generation g: Int, key: String,
                            count: Int) throws(QuakeError) -> ByteArena {
        let file = partitionFile(key: key, generation: g)
        if FileIO.exists(store + "/partitions/" + file) {
            do throws(QuakeError) {
                return try sorted(partitionIds(store: store, file: file, rows: count))
            } catch {
                // retired and collected since the check: the copy was written before that commit
                guard !FileIO.exists(store + "/partitions/" + file) else { throw error }
            }
        }
        let copy = copyPath(store: store, generation: g, key: key)
        guard FileIO.exists(copy) else {
            throw .corrupt(copy, "the ids of partitions/\(file), which transaction \(g) inserted, are gone")
        }
        return try readCopy(copy, count: count)
    }

    /// Before a commit retires partition files: copies the ids of each one that a kept
    /// transaction's section refers to, so that the transaction still lists them. The copies
    /// are written but not flushed: the commit flushes the store-relative paths returned with
    /// its other new files, before its manifest names them (a copy left unflushed by a crash
    /// reads damaged and is written again).
    /// - Parameters:
    ///   - retired: store-relative paths the commit retires (`partitions/KEY.gN.qkp`, ...).
    ///   - history: the generations whose transactions are kept.
    ///   - cancelled: asked before each file; a cancel throws ``QuakeError/Kind/interrupted``.
    /// - Complexity: the copies are made on the cores, each reading one partition's id column.
    @discardableResult
    package static func preserve(retired: [String], history: [Int], storePath: String,
                                 cancelled: (@Sendable () -> Bool)? = nil) throws(QuakeError) -> [String] {
        let kept = Set(history)
        var transactions: [Int: HistoryFile] = [:]
        var copies: [Copy] = []
        var written: [String] = []
        for r in retired where r.hasPrefix("partitions/") {
            if cancelled?() == true { throw QuakeError(.interrupted, path: storePath + "/tmp", detail: "interrupted") }
            let name = String(r.dropFirst("partitions/".count))
            guard let parsed = parsePartitionFile(name), kept.contains(parsed.generation) else { continue }
            let tx: HistoryFile
            if let read = transactions[parsed.generation] {
                tx = read
            } else {
                tx = try HistoryFile.read(path: HistoryFile.path(store: storePath, generation: parsed.generation))
                transactions[parsed.generation] = tx
            }
            guard let sectionIndex = tx.sections.firstIndex(where: { $0.key == parsed.key }),
                  try tx.isReference(sectionIndex) else { continue }
            copies.append(Copy(file: name, path: copyPath(store: storePath, generation: parsed.generation,
                                                           key: parsed.key),
                               rows: tx.sections[sectionIndex].inserted))
            written.append(String(copies[copies.count - 1].path.dropFirst(storePath.count + 1)))
        }
        // each copy alone: the ids read, sorted, compressed and written durably (a commit that
        // retires hundreds of bulk-loaded partitions spent a third of its time here on one core)
        let failures = Mutex<[Int: QuakeError]>([:])
        let work = copies
        DispatchQueue.concurrentPerform(iterations: work.count) { index in
            let copy = work[index]
            do throws(QuakeError) {
                if cancelled?() == true {
                    throw QuakeError(.interrupted, path: storePath + "/tmp", detail: "interrupted")
                }
                // a whole copy left by a load that did not commit serves as well
                if (try? readCopy(copy.path, count: copy.rows)) != nil { return }
                try FileIO.writeFile(copy.path, try encodeCopy(store: storePath, file: copy.file, rows: copy.rows))
            } catch {
                failures.withLock { $0[index] = error }
            }
        }
        if let first = failures.withLock({ $0.min { $0.key < $1.key }?.value }) { throw first }
        return written
    }

    /// A copy of a retired partition file's ids to make: the file, the copy's path, its rows.
    private struct Copy: Sendable {
        let file: String
        let path: String
        let rows: Int
    }

    /// `KEY.gN.qkp` split into key and generation.
    static func parsePartitionFile(_ name: String) -> (key: String, generation: Int)? {
        let suffix = "." + PartitionFile.fileExtension
        guard name.hasSuffix(suffix), let dot = name.dropLast(suffix.count).lastIndex(of: "."),
              name[name.index(after: dot)...].hasPrefix("g"),
              let generation = Int(name[name.index(dot, offsetBy: 2)
                                        ..< name.index(name.endIndex, offsetBy: -suffix.count)]),
              generation >= 0 else { return nil }
        return (String(name[..<dot]), generation)
    }

    /// The id column of a partition file, in storage order, checked against `rows`.
    private static func partitionIds(store: String, file: String, rows: Int) throws(QuakeError) -> ByteArena {
        let reader = PartitionReader(storePath: store, entry: PartitionEntry(key: "", file: file, rows: rows,
                                                                             minTime: 0, maxTime: 0, bytes: 0))
        var out = ByteArena()
        // the count comes from a transaction header: reserve no more than a partition could hold
        out.ends.reserveCapacity(Swift.min(rows, 1 << 22))
        for k in 0..<(try reader.directory().blockSizes.count) {
            out.append(contentsOf: try reader.arena(.id, block: k))
        }
        guard out.count == rows else {
            throw .corrupt(reader.path, "holds \(out.count) ids where its transaction inserted \(rows)")
        }
        return out
    }

    private static func sorted(_ ids: ByteArena) -> ByteArena {
        var out = ByteArena()
        out.ends.reserveCapacity(ids.count)
        out.bytes.reserveCapacity(ids.bytes.count)
        for i in HistoryIdList.sortedOrder(ids) { out.append(from: ids, row: i) }
        return out
    }

    /// A copy of the id column of `partitions/FILE` (`rows` ids): its chunks as they are stored,
    /// each checked against the file's checksums as it is read.
    private static func encodeCopy(store: String, file: String, rows: Int) throws(QuakeError) -> [UInt8] {
        let reader = PartitionReader(storePath: store, entry: PartitionEntry(key: "", file: file, rows: rows,
                                                                             minTime: 0, maxTime: 0, bytes: 0))
        let image = try reader.columnImage(.id)
        let copied = image.chunks.reduce(0) { $0 + $1.rows }
        guard copied == rows else {
            throw .corrupt(reader.path, "holds \(copied) ids where its transaction inserted \(rows)")
        }
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(48 + 32 * image.chunks.count + image.bytes.count)
        writer.bytes.append(contentsOf: magic)
        writer.u64(UInt64(rows))
        writer.u64(UInt64(image.chunks.count))
        image.bytes.withUnsafeBytes { bytes in
            for chunk in image.chunks {
                writer.u64(UInt64(chunk.codec.rawValue))
                writer.u64(UInt64(chunk.rows))
                writer.u64(UInt64(chunk.length))
                // SAFETY: columnImage laid each chunk out at its offset in `bytes`, `length` bytes long.
                writer.u64(Checksum.hash(UnsafeRawBufferPointer(rebasing: bytes[chunk.offset..<(chunk.offset
                                                                                                   + chunk.length)])))
            }
        }
        writer.u64(Checksum.hash(writer.bytes))
        writer.bytes.append(contentsOf: image.bytes)
        return writer.bytes
    }

    /// The first layout's copy of `ids`, sorted and compressed as a list: what stores wrote
    /// before ``magic`` became `QKHIDS02` (tests write it to check that such copies still read).
    package static func listCopy(_ ids: ByteArena) -> [UInt8] {
        let list = HistoryIdList.encode(ids, level: 1)
        var writer = ByteWriter()
        writer.bytes.append(contentsOf: listMagic)
        writer.u64(UInt64(ids.count))
        writer.u64(UInt64(list.rawSize))
        writer.u64(UInt64(list.bytes.count))
        writer.u64(Checksum.hash(list.bytes))
        writer.bytes.append(contentsOf: list.bytes)
        return writer.bytes
    }

    private static func readCopy(_ path: String, count: Int) throws(QuakeError) -> ByteArena {
        let file = try MappedFile(path: path)
        // SAFETY: withExtendedLifetime keeps `file` (the mapping's owner) alive while `file.bytes` is read;
        // decode copies the ids out.
        return try withExtendedLifetime(file) { () throws(QuakeError) in try readCopy(file.bytes, path, count: count) }
    }

    private static func readCopy(_ b: UnsafeRawBufferPointer, _ path: String,
                                 count: Int) throws(QuakeError) -> ByteArena {
        // SAFETY: b.count >= 40 is checked before b[0..<8] is read.
        guard b.count >= 40 else { throw .corrupt(path, "not a copy of history ids") }
        if (0..<8).allSatisfy({ b[$0] == listMagic[$0] }) { return try readListCopy(b, path, count: count) }
        guard (0..<8).allSatisfy({ b[$0] == magic[$0] }) else { throw .corrupt(path, "not a copy of history ids") }
        var reader = ByteReader(b, at: 8)
        let idCount = try reader.u64()
        let chunkCount = try reader.u64()
        guard idCount == UInt64(count), chunkCount <= UInt64(reader.remaining / 32) else {
            throw .corrupt(path, "holds \(idCount) ids in \(chunkCount) chunks, expected \(count) ids")
        }
        var chunks: [(codec: UInt64, rows: UInt64, length: UInt64, checksum: UInt64)] = []
        for _ in 0..<Int(chunkCount) {
            chunks.append((try reader.u64(), try reader.u64(), try reader.u64(), try reader.u64()))
        }
        let headerEnd = reader.pos
        // SAFETY: headerEnd <= b.count: the chunk table was read from `b`.
        let headerSum = Checksum.hash(UnsafeRawBufferPointer(rebasing: b[0..<headerEnd]))
        guard try reader.u64() == headerSum else { throw .corrupt(path, "checksum mismatch in its chunk table") }
        var ids = ByteArena()
        ids.ends.reserveCapacity(count)
        for (index, chunk) in chunks.enumerated() {
            guard let codec = CodecID(rawValue: UInt8(truncatingIfNeeded: chunk.codec)), chunk.codec <= 255,
                  chunk.length <= UInt64(reader.remaining), chunk.rows <= UInt64(count - ids.count) else {
                throw .corrupt(path, "chunk \(index) runs past its bounds")
            }
            let length = Int(chunk.length)
            // SAFETY: the guard checked length <= reader.remaining, so the range lies in `b`.
            let payload = UnsafeRawBufferPointer(rebasing: b[reader.pos..<(reader.pos + length)])
            reader.pos += length
            guard Checksum.hash(payload) == chunk.checksum else {
                throw .corrupt(path, "checksum mismatch in chunk \(index)")
            }
            let rows = Int(chunk.rows)
            do throws(QuakeError) {
                guard case .text(let text) = try codec.decode(payload, count: rows, rows: 0..<rows, as: .stored),
                      text.count == rows else {
                    throw .corrupt("chunk \(index) holds no \(rows) ids")
                }
                ids.append(contentsOf: text)
            } catch {
                throw error.at(path)
            }
        }
        guard ids.count == count, reader.remaining == 0 else {
            throw .corrupt(path, "holds \(ids.count) ids and \(reader.remaining) stray bytes, expected \(count) ids")
        }
        return sorted(ids)
    }

    /// A copy in the first layout: a sorted, compressed ``HistoryIdList``.
    private static func readListCopy(_ b: UnsafeRawBufferPointer, _ path: String,
                                     count: Int) throws(QuakeError) -> ByteArena {
        var reader = ByteReader(b, at: 8)
        let idCount = try reader.u64(), raw = try reader.u64(), comp = try reader.u64(), sum = try reader.u64()
        guard idCount == UInt64(count), comp == UInt64(reader.remaining), raw <= comp * 1024 + 65536 else {
            throw .corrupt(path, "holds \(idCount) ids in \(comp) bytes, expected \(count) in \(reader.remaining)")
        }
        // SAFETY: reader.pos <= b.count after the four u64 reads, so b[reader.pos...] is a valid (maybe empty) slice.
        let body = UnsafeRawBufferPointer(rebasing: b[reader.pos...])
        guard Checksum.hash(body) == sum else { throw .corrupt(path, "checksum mismatch") }
        do throws(QuakeError) {
            return try HistoryIdList.decode(body, rawSize: Int(raw), masks: false, count: count).ids
        } catch {
            throw error.at(path)
        }
    }
}
