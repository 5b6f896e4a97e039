
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange
import QuakeGenerator

/// Arbitrary bytes as column chunks and as partition directories, past the checksums (which
/// the harness recomputes, as a forger could): everything behind a checksum must still refuse
/// what it cannot decode.
///
/// Byte 0 picks the mode. Mode 0: byte 1 picks the codec, bytes 2-3 the row count, bytes 4-7
/// a row range; the rest is the chunk, decoded whole, in the range, and range-selected.
/// Mode 1: bytes 1-3 set the size of a data area taken from the input; the rest is a directory,
/// given a valid footer, parsed, and every chunk it lists decoded.
package enum ChunkHarness: FuzzHarness {
    package static let name = "chunk"

    package static func run(_ data: UnsafeRawBufferPointer) {
        guard data.count >= 8 else { return }
        // SAFETY: data.count >= 8 (the guard), so data[0...7] and the slice data[8...] lie in `data`.
        let rest = UnsafeRawBufferPointer(rebasing: data[8...])
        if data[0] & 1 == 0 {
            guard let codec = CodecID(rawValue: data[1] % UInt8(CodecID.allCases.count) + 1) else { return }
            let count = Int(data[2]) | Int(data[3]) << 8
            let first = (Int(data[4]) | Int(data[5]) << 8) % (count + 1)
            let second = (Int(data[6]) | Int(data[7]) << 8) % (count + 1)
            decodeAll(codec, rest, count: count, rows: min(first, second)..<max(first, second))
        } else {
            directory(rest, dataBytes: Int(data[1]) | Int(data[2]) << 8 | Int(data[3]) << 16)
        }
    }

    package static func decodeAll(_ codec: CodecID, _ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>) {
        // SAFETY: `chunk` is borrowed for this call; every decoder bounds-checks its reads and throws on damage.
        _ = try? codec.decode(chunk, count: count, rows: 0..<count, as: .stored)
        _ = try? codec.decode(chunk, count: count, rows: rows, as: .doubles)
        var out: [UInt32] = []
        _ = try? codec.select(chunk, count: count, rows: rows, .time(lower: 5, upper: 1 << 40), into: &out)
        _ = try? codec.select(chunk, count: count, rows: rows, .number(lower: .init(1.5), upper: nil), into: &out)
        if codec == .placeCodes, let placeCodes = try? PlaceCodesCodec.parse(chunk, count: count) {
            _ = try? placeCodes.codes(rows)
            _ = try? placeCodes.patterns(rows)
            if rows.lowerBound < count { _ = try? placeCodes.code(rows.lowerBound) }
        }
    }

    package static func directory(_ input: UnsafeRawBufferPointer, dataBytes: Int) {
        let split = min(dataBytes, input.count)
        // SAFETY: split <= input.count, so both slices lie in `input`; Array copies them.
        var file = Array(input[..<split])
        let dir = Array(input[split...])
        guard dir.count >= 24 else { return }
        let rows = dir[16..<24].reversed().reduce(0) { $0 << 8 | Int($1) } & 0xFFFFF
        var footer = ByteWriter()
        footer.u64(UInt64(file.count))
        footer.u64(UInt64(dir.count))
        // SAFETY: `$0` is used only by hash inside the closure.
        footer.u64(dir.withUnsafeBytes { Checksum.hash($0) })
        file += dir + footer.bytes + PartitionFile.magic
        // SAFETY: `bytes` is used only inside the closure; directory() checked offset + length <= the data
        // end <= bytes.count for every chunk, so each slice below lies in `bytes`.
        file.withUnsafeBytes { bytes in
            guard let directory = try? PartitionFile.directory(bytes, path: "fuzz", rows: rows) else { return }
            for (column, list) in directory.chunks.enumerated() {
                for info in list {
                    let chunk = UnsafeRawBufferPointer(rebasing: bytes[info.offset..<(info.offset + info.length)])
                    _ = try? info.codec.decode(chunk, count: info.rows, rows: 0..<info.rows, as: .stored)
                    _ = column
                }
            }
        }
    }

    package static func seeds() -> [[UInt8]] {
        var batch = RowBatch()
        var options = GeneratorOptions(rows: 600)
        options.rowsPerFile = 600
        options.firstYear = 2024
        options.lastYear = 2024
        // a real feed when the run script names one, else a generated one
        let feed = ProcessInfo.processInfo.environment["QUAKES_FUZZ_FEED"]
            ?? (try? FeedGenerator.generate(options, into: fuzzScratch + "/chunk-feed"))?.first
        guard let feed, let reader = try? FeedReader(path: feed, seqBase: 0, onReject: { _ in }),
              let first = try? reader.next(maxRows: 600) else { return [] }
        batch = first
        var seeds: [[UInt8]] = []
        for column in Column.allCases {
            for rows in [0..<batch.count, 0..<min(37, batch.count)] {
                var out: [UInt8] = []
                let (codec, _) = PartitionFile.encodeChunk(column, batch, rows: rows, into: &out)
                let count = rows.count
                seeds.append([0, codec.rawValue - 1, UInt8(count & 0xFF), UInt8(count >> 8), 3, 0, 200, 0] + out)
            }
        }
        // a whole small partition file: its data area, then its directory
        let written = PartitionFile.encode(batch, blockRows: 256)
        let bytes = written.bytes
        let dirEnd = bytes.count - PartitionFile.footerSize
        let off = bytes[dirEnd..<(dirEnd + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
        seeds.append([1, UInt8(off & 0xFF), UInt8(off >> 8 & 0xFF), UInt8(off >> 16 & 0xFF), 0, 0, 0, 0]
                     + Array(bytes[..<dirEnd]))
        return seeds
    }
}
