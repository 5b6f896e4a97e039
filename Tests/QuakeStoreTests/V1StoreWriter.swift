import Foundation
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport

/// Writes a store in format v1 (JSON manifest, one zstd column file per column) from rows,
/// exactly as the v1 code did, so that `migrate` can be tested without the old build.
enum V1StoreWriter {
    static func write(_ batch: RowBatch, to path: String, partitioning: Partitioning = .month, blockRows: Int = 65536) throws {
        try FileIO.makeDirectory(path + "/partitions")
        try FileIO.makeDirectory(path + "/ids")
        var groups: [Int: [Int]] = [:]
        for i in 0..<batch.count { groups[partitioning.ordinal(batch.ints[Column.time.rawValue][i]), default: []].append(i) }
        var entries: [ManifestV1.Entry] = []
        for o in groups.keys.sorted() {
            let rows = batch.gather(batch.timeIdOrder(of: groups[o] ?? []))
            let key = partitioning.key(ordinal: o), dir = "\(key).g1"
            try FileIO.makeDirectory(path + "/partitions/" + dir)
            for c in Column.allCases { try FileIO.writeFile("\(path)/partitions/\(dir)/\(c.name).col", columnFile(c, rows, blockRows)) }
            let t = rows.ints[Column.time.rawValue]
            entries.append(.init(key: key, dir: dir, rows: rows.count, minTime: t.first ?? 0, maxTime: t.last ?? 0))
        }
        var buckets = [IdRecords](repeating: IdRecords(), count: Manifest.idBucketCount)
        let ids = batch.text[Column.id.rawValue]
        ids.bytes.withUnsafeBytes { raw in
            for i in 0..<batch.count {
                let p = UnsafeRawBufferPointer(rebasing: raw[ids.range(i)])
                buckets[IdRecords.bucket(p)].append(id: p, time: batch.ints[Column.time.rawValue][i],
                                                    updated: batch.ints[Column.updated.rawValue][i], seq: 0)
            }
        }
        var names: [String?] = []
        for (b, r) in buckets.enumerated() {
            if r.count == 0 { names.append(nil); continue }
            let name = String(format: "%02d.g1.idx", b)
            // the v1 id file layout: the spill form under zstd, length, checksum, magic
            let payload = r.serialized()
            var w = ByteWriter()
            w.bytes = Zstd.compress(payload, level: 3)
            let sum = Checksum.hash(w.bytes)
            w.u32(UInt32(payload.count)); w.u64(sum)
            w.bytes.append(contentsOf: IdRecords.magicV1)
            try FileIO.writeFile(path + "/ids/" + name, w.bytes)
            names.append(name)
        }
        let m = ManifestV1(format: "quakes-store", version: 1, partitioning: partitioning, blockRows: blockRows, generation: 1,
                           rows: batch.count, partitions: entries, idBuckets: names, retired: [])
        try FileIO.writeDurably(path + "/manifest.json", Array(try JSONEncoder().encode(m)))
    }

    /// `[zstd frame per block][footer][trailer]`, as v1's `ColumnFile.encode` wrote it.
    static func columnFile(_ c: Column, _ batch: RowBatch, _ blockRows: Int) -> [UInt8] {
        var out: [UInt8] = []
        var w = ByteWriter()
        var start = 0
        var blocks = 0
        repeat {
            let rows = start..<Swift.min(batch.count, start + blockRows)
            let payload: [UInt8]
            switch c.kind {
            case .timestamp, .decimal: payload = BytePlanes.encode(batch.ints[c.rawValue][rows], delta: c == .time)
            case .category: payload = CategoryPayload.encode(batch.text[c.rawValue], rows: rows)
            case .text: payload = TextPayload.encode(batch.text[c.rawValue], rows: rows)
            case .place: payload = PlacePayload.encode(batch.text[c.rawValue], rows: rows)
            }
            let frame = Zstd.compress(payload, level: 3)
            w.u64(UInt64(out.count)); w.u32(UInt32(frame.count)); w.u32(UInt32(payload.count)); w.u32(UInt32(rows.count))
            w.u32(0); w.i64(0); w.i64(0); w.u64(Checksum.hash(frame))
            out.append(contentsOf: frame)
            blocks += 1
            start = rows.upperBound
        } while start < batch.count
        let sum = Checksum.hash(w.bytes)
        w.u32(UInt32(blocks)); w.u8(UInt8(c.rawValue)); w.u8(1); w.u8(0); w.u8(0); w.u64(sum)
        w.bytes.append(contentsOf: Array("QKCOL001".utf8))
        out.append(contentsOf: w.bytes)
        return out
    }
}
