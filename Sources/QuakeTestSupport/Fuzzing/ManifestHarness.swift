
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

/// Arbitrary bytes as a manifest and as an id-index bucket, each given a valid checksum (and
/// the bucket a valid zstd frame), so the fuzzer reaches the checks behind them.
/// Byte 0 picks the mode: 0 mod 4, a manifest body after the magic; 2 mod 4, a v3 bucket
/// payload (bucket `byte >> 2`) and the body as a v4 bucket file; odd, a v2 or v1 bucket payload.
package enum ManifestHarness: FuzzHarness {
    package static let name = "manifest"

    package static func run(_ data: UnsafeRawBufferPointer) {
        guard let mode = data.first else { return }
        // SAFETY: `data` is non-empty (it has a first byte), so data[1...] is a valid slice; Array copies it.
        let body = Array(data[1...])
        if mode & 3 == 2 {
            var writer = ByteWriter()
            writer.bytes = body
            writer.u32(UInt32(body.count))
            writer.u64(Checksum.hash(body))
            writer.bytes += IdHashes.magicV3
            let bucket = Int(mode >> 2) % Manifest.idBucketCount
            // SAFETY: `p` is used only inside the closure; decode bounds-checks it and copies what it keeps.
            writer.bytes.withUnsafeBytes { p in
                _ = try? IdHashes.decode(p, bucket: bucket, partitioning: .month, path: "fuzz")
            }
            // the body as a v4 file as it is: the directory and each block it lists
            let file = body + IdHashes.magic
            // SAFETY: `p` is used only inside the closure; the parsers bounds-check it.
            file.withUnsafeBytes { p in
                guard let blocked = try? IdBucketFile(p, path: "fuzz") else { return }
                for index in blocked.blocks.indices { _ = try? blocked.entries(ofBlock: index) }
            }
        } else if mode & 1 == 0 {
            var writer = ByteWriter()
            writer.bytes = Manifest.magic + body
            writer.u64(Checksum.hash(writer.bytes))
            // SAFETY: `b` is used only inside the closure; decode bounds-checks it and copies what it keeps.
            writer.bytes.withUnsafeBytes { b in _ = try? Manifest.decode(b, path: "fuzz") }
        } else {
            var writer = ByteWriter()
            writer.bytes = Zstd.compress(body, level: 1)
            let sum = Checksum.hash(writer.bytes)
            writer.u32(UInt32(body.count))
            writer.u64(sum)
            writer.bytes += (mode & 2 == 0 ? IdRecords.magic : IdRecords.magicV1)
            // SAFETY: `b` is used only inside the closure; decode bounds-checks it and copies what it keeps.
            writer.bytes.withUnsafeBytes { b in
                _ = try? IdHashes.decode(b, bucket: 0, partitioning: .month, path: "fuzz")
            }
        }
    }

    package static func seeds() -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        var manifest = Manifest(partitioning: .month, blockRows: 4096)
        manifest.generation = 7
        var time: Int64 = 1_700_000_000_000
        for k in 0..<3 {
            let key = "2023-\(11 + k)"
            manifest.partitions.append(PartitionEntry(key: key, file: "\(key).g7.qkp", rows: 10 + k, minTime: time,
                                                      maxTime: time + 86_400_000, bytes: 4096))
            manifest.rows += 10 + k
            time += 40 * 86_400_000
        }
        manifest.idBuckets[3] = "03.g7.idx"
        manifest.retired = ["partitions/old.g6.qkp"]
        manifest.history.baseGeneration = 1
        manifest.history.baseTime = 1_699_000_000_000
        manifest.history.ranges = [2...4, 6...7]
        let enc = manifest.encoded()
        seeds.append([0] + Array(enc[8..<(enc.count - 8)]))
        var records = IdRecords()
        for i in 0..<20 {
            let id = Array("us7000\(i)".utf8)
            // SAFETY: `$0` is used only inside the closure; append copies the id.
            id.withUnsafeBytes {
                records.append(id: $0, time: 1_700_000_000_000 + Int64(i) * 1000, updated: 1, seq: Int64(i))
            }
        }
        let file = records.fileBytes()
        let rawLen = file[(file.count - 20)..<(file.count - 16)].reversed().reduce(0) { $0 << 8 | Int($1) }
        let frame = Array(file[0..<(file.count - 20)])
        // SAFETY: `b` is used only inside the closure; zstd reads at most b.count bytes.
        let payload = try? frame.withUnsafeBytes { (b) throws(QuakeError) in
            try Zstd.decompress(b, expectedSize: rawLen)
        }
        if let payload {
            seeds.append([1] + payload)
        }
        seeds.append([3] + records.serialized())
        for bucket in 0..<Manifest.idBucketCount {
            var one = IdRecords()
            // SAFETY: i < records.count and the records' ends lie in their bytes; bucket only hashes the slice.
            records.ids.bytes.withUnsafeBytes { raw in
                for i in 0..<records.count
                where IdRecords.bucket(UnsafeRawBufferPointer(rebasing: raw[records.ids.range(i)])) == bucket {
                    one.append(from: records, i)
                }
            }
            guard one.count > 1,
                  let hashes = try? IdHashes.converting(one, bucket: bucket, partitioning: .month)
            else { continue }
            let v3 = hashes.fileBytesV3()
            seeds.append([UInt8(bucket << 2 | 2)] + Array(v3[0..<(v3.count - 20)]))
            let v4 = hashes.fileBytes()
            seeds.append([UInt8(bucket << 2 | 2)] + Array(v4[0..<(v4.count - 8)]))
            break
        }
        return seeds
    }
}
