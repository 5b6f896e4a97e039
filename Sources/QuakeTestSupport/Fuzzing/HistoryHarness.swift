import QuakeFormat
import QuakeStore
import QuakeInterchange
/// Arbitrary bytes as a history transaction file (header checksum made valid, so the fuzzer
/// reaches the checks behind it; every section is then read) and as a front-coded id list
/// (given a valid zstd frame). Byte 0 picks the mode: even, a transaction; odd, an id list.
package enum HistoryHarness: FuzzHarness {
    package static let name = "history"

    package static func run(_ data: UnsafeRawBufferPointer) {
        guard let mode = data.first else { return }
        // SAFETY: `data` is non-empty (it has a first byte), so data[1...] is a valid slice; Array copies it.
        let body = Array(data[1...])
        if mode & 1 == 0 {
            let file = withValidHeaderChecksum(body)
            // SAFETY: `bytes` is used only inside the closure; decode and changes bounds-check and copy
            // what they keep.
            file.withUnsafeBytes { bytes in
                guard let history = try? HistoryFile.decode(bytes, path: "fuzz") else { return }
                for i in history.sections.indices { _ = try? history.changes(i, in: bytes, path: "fuzz") }
            }
        } else {
            let frame = Zstd.compress(body, level: 1)
            // SAFETY: `b` is used only inside the closure; decode reads below its count and copies the ids.
            frame.withUnsafeBytes { b in
                _ = try? HistoryIdList.decode(b, rawSize: body.count, masks: mode & 2 != 0, count: Int(mode >> 2))
            }
        }
    }

    /// `body` as magic + header length + header + checksum + sections, where the first four
    /// bytes of `body` give the header length.
    package static func withValidHeaderChecksum(_ body: [UInt8]) -> [UInt8] {
        guard body.count >= 4 else { return HistoryFile.magic + body }
        let headerLength = Int(body[0]) | Int(body[1]) << 8 | Int(body[2]) << 16 | Int(body[3]) << 24
        let rest = Array(body[4...])
        guard headerLength <= rest.count else { return HistoryFile.magic + body }
        var writer = ByteWriter()
        writer.bytes = HistoryFile.magic
        writer.u32(UInt32(headerLength))
        writer.bytes += rest[0..<headerLength]
        // SAFETY: `$0` spans the header slice (headerLength <= rest.count, checked) and is used only by hash.
        writer.u64(rest[0..<headerLength].withUnsafeBytes { Checksum.hash($0) })
        writer.bytes += rest[headerLength...]
        return writer.bytes
    }

    package static func seeds() -> [[UInt8]] {
        var changes = ChangeSet()
        for i in 0..<40 {
            changes.inserted.append(Array("us7000\(1000 + i)".utf8))
            changes.touch(1_700_000_000_000 + Int64(i))
        }
        for i in 0..<5 {
            changes.updated.append(Array("ci3\(800 + i)".utf8))
            changes.changedColumns.append(Column.mag.bit | Column.updated.bit)
        }
        changes.unchanged.append(Array("nc7300".utf8))
        let enc = changes.encoded(key: "2023-11")
        let dir = fuzzScratch + "/history-seed"
        var seeds: [[UInt8]] = []
        try? FileIO.makeDirectory(dir)
        let staged = try? HistoryStaging(path: dir + "/seed.stage")
        try? staged?.append(ordinal: 0, enc)
        if let staged, (try? HistoryFile.write(store: dir, generation: 3, committed: 1_700_000_000_000, previous: 1,
                                               files: ["a.csv"], staged: staged)) != nil,
           let mapped = try? MappedFile(path: HistoryFile.path(store: dir, generation: 3)) {
            // SAFETY: Array(mapped.bytes) copies the mapping while `mapped` is alive (bound by this if-let).
            let fileBytes = Array(mapped.bytes)
            seeds.append([0] + Array(fileBytes[8..<12]) + Array(fileBytes[12...]).enumerated().filter { k, _ in
                // drop the checksum; run() puts a valid one back
                let headerLength = Int(fileBytes[8]) | Int(fileBytes[9]) << 8
                    | Int(fileBytes[10]) << 16 | Int(fileBytes[11]) << 24
                return k < headerLength || k >= headerLength + 8
            }.map(\.1))
        }
        var idList = VarintWriter()
        idList.varint(3)
        for (shared, suffix) in [(0, "us7000ab"), (6, "cd"), (7, "x")] {
            idList.varint(UInt64(shared))
            idList.varint(UInt64(suffix.utf8.count))
            idList.bytes += Array(suffix.utf8)
        }
        seeds.append([1 | 3 << 2] + idList.bytes)
        return seeds
    }
}
