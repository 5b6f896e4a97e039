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
            // SAFETY: `b` is used only inside the closure; decode and changes bounds-check and copy what they keep.
            file.withUnsafeBytes { b in
                guard let h = try? HistoryFile.decode(b, path: "fuzz") else { return }
                for i in h.sections.indices { _ = try? h.changes(i, in: b, path: "fuzz") }
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
        let n = Int(body[0]) | Int(body[1]) << 8 | Int(body[2]) << 16 | Int(body[3]) << 24
        let rest = Array(body[4...])
        guard n <= rest.count else { return HistoryFile.magic + body }
        var w = ByteWriter()
        w.bytes = HistoryFile.magic
        w.u32(UInt32(n))
        w.bytes += rest[0..<n]
        // SAFETY: `$0` spans the header slice (n <= rest.count, checked) and is used only by hash.
        w.u64(rest[0..<n].withUnsafeBytes { Checksum.hash($0) })
        w.bytes += rest[n...]
        return w.bytes
    }

    package static func seeds() -> [[UInt8]] {
        var changes = ChangeSet()
        for i in 0..<40 { changes.inserted.append(Array("us7000\(1000 + i)".utf8)); changes.touch(1_700_000_000_000 + Int64(i)) }
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
           let f = try? MappedFile(path: HistoryFile.path(store: dir, generation: 3)) {
            // SAFETY: Array(f.bytes) copies the mapping while `f` is alive (bound by this if-let).
            let b = Array(f.bytes)
            seeds.append([0] + Array(b[8..<12]) + Array(b[12...]).enumerated().filter { k, _ in
                // drop the checksum; run() puts a valid one back
                let n = Int(b[8]) | Int(b[9]) << 8 | Int(b[10]) << 16 | Int(b[11]) << 24
                return k < n || k >= n + 8
            }.map(\.1))
        }
        var w = VarintWriter()
        w.varint(3)
        for (shared, suffix) in [(0, "us7000ab"), (6, "cd"), (7, "x")] {
            w.varint(UInt64(shared)); w.varint(UInt64(suffix.utf8.count)); w.bytes += Array(suffix.utf8)
        }
        seeds.append([1 | 3 << 2] + w.bytes)
        return seeds
    }
}
