import Foundation

/// One load's transaction on disk: `history/tx.gN.qkh`, written before the commit that makes
/// generation N current and named by that commit's manifest, so history and data change
/// together or not at all.
///
/// Layout: `"QKHIST01"`, `u32 header length`, the header, `u64 header checksum`, then one
/// section per partition the load changed. The header holds the generation, the commit time,
/// the generation of the transaction before it, the changed events' time span, the three
/// counts, the input files, and per section its partition key, time span, counts, offset,
/// length and checksum. Listing reads headers only; a section is checked when it is read.
package struct HistoryFile {
    package static let magic: [UInt8] = Array("QKHIST01".utf8)
    /// The magic of a file with a section that refers to a partition file for its inserted ids
    /// (``HistoryReference``), which a reader of `QKHIST01` files would not understand.
    package static let magicWithReferences: [UInt8] = Array("QKHIST02".utf8)
    package static let fileExtension = "qkh"

    /// One partition's part of the transaction.
    package struct Section: Equatable, Sendable {
        package var key: String
        package var minTime: Int64
        package var maxTime: Int64
        package var inserted: Int
        package var updated: Int
        package var unchanged: Int
        package var offset: Int
        package var length: Int
        package var checksum: UInt64
        /// Whether the inserted ids are a reference to the partition file (set when encoded; a
        /// section read from disk tells by its body, ``HistoryFile/isReference(_:)``).
        package var reference = false
    }

    package var generation: Int
    /// Commit time, epoch milliseconds.
    package var committed: Int64
    /// The transaction before this one when it was written (its generation, or the history's
    /// base generation when there was none).
    package var previous: Int
    package var minTime: Int64
    package var maxTime: Int64
    package var files: [String]
    package var sections: [Section]
    /// The mapped file (nil for a header built in memory).
    private var mapped: MappedFile?

    package var inserted: Int { sections.reduce(0) { $0 + $1.inserted } }
    package var updated: Int { sections.reduce(0) { $0 + $1.updated } }
    package var unchanged: Int { sections.reduce(0) { $0 + $1.unchanged } }

    package static func name(generation g: Int) -> String { "tx.g\(g).\(fileExtension)" }
    package static func path(store: String, generation g: Int) -> String { store + "/history/" + name(generation: g) }

    /// Writes the transaction of generation `g` from the sections staged by the load (in
    /// partition order), copying one body at a time, and returns its size. Not synced: the
    /// commit syncs the store before it renames the manifest.
    /// `cancelled` is asked before each section: a cancelled write throws
    /// ``QuakeError/Kind/interrupted``, and the load removes the part written.
    /// - Complexity: memory bounded by the largest section plus 1 MiB.
    package static func write(store: String, generation g: Int, committed: Int64, previous: Int, files: [String],
                              staged: HistoryStaging,
                              cancelled: (@Sendable () -> Bool)? = nil) throws(QuakeError) -> Int {
        let scratch = staged.sections
        var sections: [Section] = []
        var offset = 0
        var lo = Int64.max, hi = Int64.min
        for var section in scratch {
            section.offset = offset
            sections.append(section)
            offset += section.length
            lo = min(lo, section.minTime)
            hi = max(hi, section.maxTime)
        }
        let header = HistoryFile(generation: g, committed: committed, previous: previous, minTime: lo, maxTime: hi,
                                 files: files, sections: sections, mapped: nil).headerBytes()
        var writer = ByteWriter()
        writer.bytes.append(contentsOf: scratch.contains { $0.reference } ? magicWithReferences : magic)
        writer.u32(UInt32(header.count))
        writer.bytes.append(contentsOf: header)
        writer.u64(Checksum.hash(header))
        try FileIO.makeDirectory(store + "/history")
        let target = path(store: store, generation: g)
        let fd = try FileIO.open(target, O_CREAT | O_TRUNC | O_WRONLY)
        defer { FileIO.close(fd) }
        // a section is often a few dozen bytes (a reference): written in runs of about 1 MiB
        var pending = writer.bytes
        var at = 0
        for section in scratch {
            if cancelled?() == true { throw QuakeError(.interrupted, path: target, detail: "interrupted") }
            pending.append(contentsOf: try staged.body(section))
            if pending.count >= 1 << 20 {
                try FileIO.pwriteAll(fd, pending, at: at, path: target)
                at += pending.count
                pending.removeAll(keepingCapacity: true)
            }
        }
        try FileIO.pwriteAll(fd, pending, at: at, path: target)
        return at + pending.count
    }

    private func headerBytes() -> [UInt8] {
        var writer = ByteWriter()
        writer.u64(UInt64(generation))
        writer.i64(committed)
        writer.u64(UInt64(previous))
        writer.i64(minTime)
        writer.i64(maxTime)
        writer.u32(UInt32(files.count))
        for f in files { writer.string(f) }
        writer.u32(UInt32(sections.count))
        for s in sections {
            writer.string(s.key)
            writer.i64(s.minTime)
            writer.i64(s.maxTime)
            writer.u64(UInt64(s.inserted))
            writer.u64(UInt64(s.updated))
            writer.u64(UInt64(s.unchanged))
            writer.u64(UInt64(s.offset))
            writer.u64(UInt64(s.length))
            writer.u64(s.checksum)
        }
        return writer.bytes
    }

    /// Reads and checks the header of the transaction file at `path`.
    package static func read(path: String) throws(QuakeError) -> HistoryFile {
        let file = try MappedFile(path: path)
        // SAFETY: decode copies what it keeps; `file` is used again below (history.mapped), so the mapping outlives it.
        var history = try decode(file.bytes, path: path)
        history.mapped = file
        return history
    }

    /// Decodes and checks a transaction's header; sections are checked when read.
    package static func decode(_ b: UnsafeRawBufferPointer, path: String) throws(QuakeError) -> HistoryFile {
        func bad(_ why: String) -> QuakeError { .corrupt(path, why) }
        // SAFETY: b.count >= 20 is checked before b[0..<8] is read.
        guard b.count >= 20, (0..<8).allSatisfy({ b[$0] == magic[$0] })
                || (0..<8).allSatisfy({ b[$0] == magicWithReferences[$0] }) else { throw bad("not a history file") }
        var reader = ByteReader(b, at: 8)
        let sectionCount = Int(try reader.u32())
        guard sectionCount <= b.count - 20 else { throw bad("header runs past the end") }
        // SAFETY: sectionCount <= b.count - 20, so the header (12..<12 + sectionCount) and the checksum after it lie in
        // `b`.
        let header = UnsafeRawBufferPointer(rebasing: b[12..<(12 + sectionCount)])
        var tail = ByteReader(b, at: 12 + sectionCount)
        guard Checksum.hash(header) == (try tail.u64()) else { throw bad("header checksum mismatch") }
        let bodyStart = 12 + sectionCount + 8
        do throws(QuakeError) {
            var headerReader = ByteReader(header)
            let generation = try headerReader.u64()
            let committed = try headerReader.i64()
            let previous = try headerReader.u64()
            guard generation < 1 << 48, previous < generation else {
                throw bad("generation \(generation) after \(previous)")
            }
            let lo = try headerReader.i64(), hi = try headerReader.i64()
            let nf = Int(try headerReader.u32())
            guard nf <= headerReader.remaining / 2 else { throw bad("lists \(nf) files") }
            var files: [String] = []
            for _ in 0..<nf { files.append(try headerReader.string()) }
            let ns = Int(try headerReader.u32())
            guard ns <= headerReader.remaining / 66 else { throw bad("lists \(ns) sections") }
            var sections: [Section] = []
            var end = bodyStart
            for _ in 0..<ns {
                let key = try headerReader.string()
                let smin = try headerReader.i64(), smax = try headerReader.i64()
                let ni = try headerReader.u64(), nu = try headerReader.u64(), nn = try headerReader.u64()
                let off = try headerReader.u64(), len = try headerReader.u64(), sum = try headerReader.u64()
                guard ni < 1 << 40, nu < 1 << 40, nn < 1 << 40, off == UInt64(end - bodyStart),
                      len <= UInt64(b.count - end) else { throw bad("section \(key) has impossible values") }
                // peeked, not checked: the checksum is checked when the section is read
                // SAFETY: len >= 16 and len <= b.count - end, so the 8 bytes at `end` lie in `b`; loadUnaligned needs
                // no alignment.
                let reference = len >= 16 && b.loadUnaligned(fromByteOffset: end, as: UInt64.self).littleEndian
                    == HistoryReference.marker
                sections.append(Section(key: key, minTime: smin, maxTime: smax, inserted: Int(ni), updated: Int(nu),
                                        unchanged: Int(nn), offset: Int(off), length: Int(len), checksum: sum,
                                        reference: reference))
                end += Int(len)
            }
            guard headerReader.remaining == 0, end == b.count else { throw bad("\(b.count - end) stray bytes") }
            return HistoryFile(generation: Int(generation), committed: committed, previous: Int(previous), minTime: lo,
                               maxTime: hi, files: files, sections: sections, mapped: nil)
        } catch {
            if error.kind == .corrupt { throw error.at(path) }
            throw error
        }
    }

    /// The ids of section `i`, checked against the section's checksum and counts.
    package func changes(_ i: Int) throws(QuakeError) -> ChangeSet {
        guard let mapped else { throw .corrupt("history section \(i) is not mapped") }
        // SAFETY: `mapped` is a stored property, so the mapping outlives this call; changes copies the ids out.
        return try changes(i, in: mapped.bytes, path: mapped.path)
    }

    /// Whether section `i` refers to its partition file for its inserted ids.
    package func isReference(_ i: Int) throws(QuakeError) -> Bool {
        guard let mapped else { throw .corrupt("history section \(i) is not mapped") }
        // SAFETY: `mapped` is a stored property, so the mapping outlives this call; the read is bounds-checked.
        let body = try body(i, in: mapped.bytes, path: mapped.path)
        var reader = ByteReader(body)
        return try reader.u64() == HistoryReference.marker
    }

    /// Section `i`'s bytes within the whole file `b`, checked against its checksum.
    private func body(_ i: Int, in b: UnsafeRawBufferPointer,
                      path: String) throws(QuakeError) -> UnsafeRawBufferPointer {
        guard sections.indices.contains(i) else { throw .corrupt(path, "no history section \(i)") }
        let section = sections[i]
        let headerEnd = b.count - sections.reduce(0) { $0 + $1.length }
        assert(headerEnd >= 0 && section.offset >= 0 && headerEnd + section.offset + section.length <= b.count,
               "section \(i) outside the file it was decoded from")
        // SAFETY: decode checked every section lies end to end up to b.count (end == b.count), so for the file
        // the header came from the slice lies in `b`; callers pass that file (mapped or the decoded bytes).
        let start = headerEnd + section.offset
        let body = UnsafeRawBufferPointer(rebasing: b[start..<(start + section.length)])
        guard Checksum.hash(body) == section.checksum else {
            throw .corrupt(path, "section \(section.key) checksum mismatch")
        }
        return body
    }

    /// The ids of section `i` of the whole file `b` (at `path`, under its store's `history/`).
    package func changes(_ i: Int, in b: UnsafeRawBufferPointer, path: String) throws(QuakeError) -> ChangeSet {
        let body = try body(i, in: b, path: path)
        let section = sections[i]
        // SAFETY: reads go through ByteReader; the list slice follows the check comp <= reader.remaining.
        var reader = ByteReader(body)
        var out = ChangeSet()
        out.minTime = section.minTime
        out.maxTime = section.maxTime
        for (k, expected) in [section.inserted, section.updated, section.unchanged].enumerated() {
            let raw = try reader.u64(), comp = try reader.u64()
            if k == 0, raw == HistoryReference.marker, comp == 0 {
                guard let slash = path.range(of: "/history/", options: .backwards) else {
                    throw .corrupt(path, "section \(section.key) refers to a partition outside a store")
                }
                out.inserted = try HistoryReference.ids(store: String(path[..<slash.lowerBound]),
                                                        generation: generation, key: section.key,
                                                        count: section.inserted)
                continue
            }
            guard comp <= UInt64(reader.remaining), raw <= comp * 1024 + 65536 else {
                throw .corrupt(path, "section \(section.key) list \(k) has impossible sizes")
            }
            let bytes = UnsafeRawBufferPointer(rebasing: body[reader.pos..<(reader.pos + Int(comp))])
            reader.pos += Int(comp)
            let list = try HistoryIdList.decode(bytes, rawSize: Int(raw), masks: k == 1, count: expected)
            switch k {
            case 0: out.inserted = list.ids
            case 1:
                out.updated = list.ids
                out.changedColumns = list.masks
            default: out.unchanged = list.ids
            }
        }
        guard reader.remaining == 0 else { throw .corrupt(path, "section \(section.key) has stray bytes") }
        return out
    }
}
