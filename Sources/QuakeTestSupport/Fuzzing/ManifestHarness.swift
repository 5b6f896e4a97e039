
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

/// Arbitrary bytes as a manifest and as an id-index bucket, each given a valid checksum (and
/// the bucket a valid zstd frame), so the fuzzer reaches the checks behind them.
/// Byte 0 picks the mode: 0 mod 4, a manifest body after the magic; 2 mod 4, a v3 bucket
/// payload (bucket `byte >> 2`); odd, a v2 or v1 bucket payload.
package enum ManifestHarness: FuzzHarness {
    package static let name = "manifest"

    package static func run(_ data: UnsafeRawBufferPointer) {
        guard let mode = data.first else { return }
        // SAFETY: `data` is non-empty (it has a first byte), so data[1...] is a valid slice; Array copies it.
        let body = Array(data[1...])
        if mode & 3 == 2 {
            var w = ByteWriter()
            w.bytes = body
            w.u32(UInt32(body.count))
            w.u64(Checksum.hash(body))
            w.bytes += IdHashes.magic
            let b = Int(mode >> 2) % Manifest.idBucketCount
            // SAFETY: `p` is used only inside the closure; decode bounds-checks it and copies what it keeps.
            w.bytes.withUnsafeBytes { p in _ = try? IdHashes.decode(p, bucket: b, partitioning: .month, path: "fuzz") }
        } else if mode & 1 == 0 {
            var w = ByteWriter()
            w.bytes = Manifest.magic + body
            w.u64(Checksum.hash(w.bytes))
            // SAFETY: `b` is used only inside the closure; decode bounds-checks it and copies what it keeps.
            w.bytes.withUnsafeBytes { b in _ = try? Manifest.decode(b, path: "fuzz") }
        } else {
            var w = ByteWriter()
            w.bytes = Zstd.compress(body, level: 1)
            let sum = Checksum.hash(w.bytes)
            w.u32(UInt32(body.count))
            w.u64(sum)
            w.bytes += (mode & 2 == 0 ? IdRecords.magic : IdRecords.magicV1)
            // SAFETY: `b` is used only inside the closure; decode bounds-checks it and copies what it keeps.
            w.bytes.withUnsafeBytes { b in _ = try? IdHashes.decode(b, bucket: 0, partitioning: .month, path: "fuzz") }
        }
    }

    package static func seeds() -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        var m = Manifest(partitioning: .month, blockRows: 4096)
        m.generation = 7
        var t: Int64 = 1_700_000_000_000
        for k in 0..<3 {
            let key = "2023-\(11 + k)"
            m.partitions.append(PartitionEntry(key: key, file: "\(key).g7.qkp", rows: 10 + k, minTime: t,
                                               maxTime: t + 86_400_000, bytes: 4096))
            m.rows += 10 + k
            t += 40 * 86_400_000
        }
        m.idBuckets[3] = "03.g7.idx"
        m.retired = ["partitions/old.g6.qkp"]
        m.history.baseGeneration = 1
        m.history.baseTime = 1_699_000_000_000
        m.history.ranges = [2...4, 6...7]
        let enc = m.encoded()
        seeds.append([0] + Array(enc[8..<(enc.count - 8)]))
        var r = IdRecords()
        for i in 0..<20 {
            let id = Array("us7000\(i)".utf8)
            // SAFETY: `$0` is used only inside the closure; append copies the id.
            id.withUnsafeBytes { r.append(id: $0, time: 1_700_000_000_000 + Int64(i) * 1000, updated: 1, seq: Int64(i)) }
        }
        let file = r.fileBytes()
        let rawLen = file[(file.count - 20)..<(file.count - 16)].reversed().reduce(0) { $0 << 8 | Int($1) }
        let frame = Array(file[0..<(file.count - 20)])
        // SAFETY: `b` is used only inside the closure; zstd reads at most b.count bytes.
        if let payload = try? frame.withUnsafeBytes({ (b) throws(QuakeError) in try Zstd.decompress(b, expectedSize: rawLen) }) {
            seeds.append([1] + payload)
        }
        seeds.append([3] + r.serialized())
        for b in 0..<Manifest.idBucketCount {
            var one = IdRecords()
            // SAFETY: i < r.count and the records' ends lie in their bytes; bucket only hashes the slice.
            r.ids.bytes.withUnsafeBytes { raw in
                for i in 0..<r.count where IdRecords.bucket(UnsafeRawBufferPointer(rebasing: raw[r.ids.range(i)])) == b {
                    one.append(from: r, i)
                }
            }
            guard one.count > 1, let h = try? IdHashes.converting(one, bucket: b, partitioning: .month) else { continue }
            let v3 = h.fileBytes()
            seeds.append([UInt8(b << 2 | 2)] + Array(v3[0..<(v3.count - 20)]))
            break
        }
        return seeds
    }
}
