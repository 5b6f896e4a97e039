import QuakeFormat
import QuakeStore
/// Parquet's RLE / bit-packing hybrid encoding, for definition levels and dictionary indices.
///
/// Runs of at least 8 equal values become RLE runs; everything else is bit-packed in groups
/// of 8 (the last group padded with zeros, which readers ignore past the value count).
package struct HybridEncoder {
    package let bitWidth: Int
    package private(set) var bytes: [UInt8] = []
    private var pending: [UInt32] = []

    package init(bitWidth: Int) { self.bitWidth = bitWidth }

    /// Bits needed for values up to `maxValue`.
    package static func width(_ maxValue: Int) -> Int {
        maxValue <= 0 ? 0 : Int.bitWidth - maxValue.leadingZeroBitCount
    }

    private mutating func varint(_ v: Int) {
        var rest = UInt64(v)
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Encodes all of `values`.
    package mutating func encode(_ values: UnsafeBufferPointer<UInt32>) {
        var start = 0
        let count = values.count
        // SAFETY: values[start + run] is read only when start + run < count = values.count, and
        // values[start + k] has k < take <= run, where start + run <= count.
        while start < count {
            var run = 1
            while start + run < count && values[start + run] == values[start] { run += 1 }
            if run >= 8 && pending.count % 8 == 0 {
                flushPacked()
                varint(run << 1)
                var value = values[start]
                for _ in 0..<((bitWidth + 7) / 8) {
                    bytes.append(UInt8(value & 0xFF))
                    value >>= 8
                }
                start += run
            } else {
                // literal: fill up the current group of 8 first, so an RLE run starts on a boundary
                let take = run >= 8 ? 8 - pending.count % 8 : run
                for k in 0..<take { pending.append(values[start + k]) }
                start += take
            }
        }
        flushPacked()
    }

    private mutating func flushPacked() {
        guard !pending.isEmpty else { return }
        while pending.count % 8 != 0 { pending.append(0) }
        varint((pending.count / 8) << 1 | 1)
        var acc: UInt64 = 0
        var bits = 0
        for v in pending {
            acc |= UInt64(v) << UInt64(bits)
            bits += bitWidth
            while bits >= 8 {
                bytes.append(UInt8(acc & 0xFF))
                acc >>= 8
                bits -= 8
            }
        }
        if bits > 0 { bytes.append(UInt8(acc & 0xFF)) }
        pending.removeAll(keepingCapacity: true)
    }
}
