import QuakeSupport
/// A sorted list of event ids (optionally each with a mask of changed columns), front-coded
/// and zstd-compressed: the id sets of a history transaction.
///
/// Encoded form before compression: `varint count`, then per id `varint shared prefix`,
/// `varint suffix length`, the suffix bytes and, for update lists, `varint column mask`.
/// Sorted ids share long prefixes (`us7000…`, `ci3…`), so this and zstd keep a million ids in
/// a few megabytes.
package enum HistoryIdList {
    /// Encodes `ids` (in any order; sorted here) with their `masks` (empty, or one per id), at
    /// zstd `level` (any level reads back the same).
    package static func encode(_ ids: ByteArena, masks: [UInt64] = [],
                               level: Int32 = 6) -> (bytes: [UInt8], rawSize: Int) {
        let order = sortedOrder(ids)
        var writer = VarintWriter()
        writer.bytes.reserveCapacity(ids.bytes.count + 3 * ids.count + 10)
        writer.varint(UInt64(order.count))
        var previous = 0..<0
        // SAFETY: every range is an id's own (i < ids.count), so the reads and the copied slice lie in the
        // arena's bytes; `raw` does not escape the closure.
        ids.bytes.withUnsafeBytes { raw in
            for i in order {
                let range = ids.range(i)
                var shared = 0
                let longest = Swift.min(previous.count, range.count)
                while shared < longest && raw[previous.lowerBound + shared] == raw[range.lowerBound + shared] {
                    shared += 1
                }
                writer.varint(UInt64(shared))
                writer.varint(UInt64(range.count - shared))
                let rest = (range.lowerBound + shared)..<range.upperBound
                writer.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[rest]))
                if !masks.isEmpty { writer.varint(masks[i]) }
                previous = range
            }
        }
        return (Zstd.compress(writer.bytes, level: level), writer.bytes.count)
    }

    /// Indices of `ids` in byte order (equal ids in index order).
    ///
    /// Orders the ids by their first 8 bytes as one big-endian integer (zero-padded) with a
    /// radix sort (``RadixSort/order(_:)``), then each run of equal prefixes by its whole bytes:
    /// the padded prefixes order exactly as the bytes do whenever they differ.
    /// - Complexity: O(n) radix passes, plus byte comparisons within runs of shared prefixes.
    package static func sortedOrder(_ ids: ByteArena) -> [Int] {
        let count = ids.count
        // SAFETY: i < ids.count, so each range lies in the arena's bytes and k < min(8, range.count) keeps
        // raw[range.lowerBound + k] inside it; `raw` is not kept past the closure (the order holds indices).
        return ids.bytes.withUnsafeBytes { raw in
            var prefixes = [UInt64](repeating: 0, count: count)
            for i in 0..<count {
                let range = ids.range(i)
                var prefix: UInt64 = 0
                for k in 0..<Swift.min(8, range.count) {
                    prefix |= UInt64(raw[range.lowerBound + k]) << UInt64(56 - 8 * k)
                }
                prefixes[i] = prefix
            }
            var order = RadixSort.order(prefixes)
            var start = 0
            while start < count {
                let prefix = prefixes[order[start]]
                var end = start + 1
                while end < count, prefixes[order[end]] == prefix { end += 1 }
                if end - start > 1 {
                    order[start..<end].sort { a, b in
                        let first = raw[ids.range(a)], second = raw[ids.range(b)]
                        if first.elementsEqual(second) { return a < b }
                        return first.lexicographicallyPrecedes(second)
                    }
                }
                start = end
            }
            return order
        }
    }

    /// Decodes a list written by ``encode(_:masks:)``: its ids and, with `masks`, their masks.
    /// Throws `.corrupt` on anything that does not add up (never traps on damaged bytes).
    package static func decode(_ compressed: UnsafeRawBufferPointer, rawSize: Int, masks: Bool,
                       count expected: Int) throws(QuakeError) -> (ids: ByteArena, masks: [UInt64]) {
        // SAFETY: `compressed` is only borrowed for this call; zstd reads at most compressed.count bytes.
        let raw = try Zstd.decompress(compressed, expectedSize: rawSize)
        return try raw.withStoreBytes { (b) throws(QuakeError) in
            // SAFETY: every read goes through VarintReader, which throws before reading past b.count.
            var reader = VarintReader(b)
            let count = try reader.varint()
            guard count == UInt64(expected), count <= UInt64(rawSize) else {
                throw .corrupt("id list holds \(count) ids, expected \(expected)")
            }
            var ids = ByteArena()
            var out: [UInt64] = []
            ids.ends.reserveCapacity(Int(count))
            var previous: [UInt8] = []
            for _ in 0..<Int(count) {
                let shared = try reader.varint(), suffix = try reader.varint()
                guard shared <= UInt64(previous.count), suffix <= UInt64(reader.remaining) else {
                    throw .corrupt("id list entry runs past its bounds")
                }
                previous.removeLast(previous.count - Int(shared))
                previous.append(contentsOf: try reader.bytes(Int(suffix)))
                ids.append(previous)
                if masks { out.append(try reader.varint()) }
            }
            guard reader.remaining == 0 else { throw .corrupt("id list has \(reader.remaining) stray bytes") }
            return (ids, out)
        }
    }
}

/// LEB128 unsigned varints into a byte buffer.
package struct VarintWriter {
    package var bytes: [UInt8] = []
    package init() {}

    package mutating func varint(_ v: UInt64) {
        var remaining = v
        while remaining >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: remaining))
    }
}

/// Reads what ``VarintWriter`` wrote, reporting damage instead of trapping.
package struct VarintReader {
    package let buffer: UnsafeRawBufferPointer
    package var pos = 0

    package init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    package var remaining: Int { buffer.count - pos }

    package mutating func varint() throws(QuakeError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while pos < buffer.count {
            // SAFETY: the loop reads buffer[pos] only while pos < buffer.count.
            let byte = buffer[pos]
            pos += 1
            guard shift < 64 else { break }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        throw .corrupt("a varint runs past the end of its list")
    }

    package mutating func bytes(_ n: Int) throws(QuakeError) -> UnsafeRawBufferPointer.SubSequence {
        guard n >= 0, n <= remaining else { throw .corrupt("a value runs past the end of its list") }
        defer { pos += n }
        // SAFETY: the guard checked 0 <= n <= remaining, so pos..<pos + n lies in `buffer`.
        return buffer[pos..<(pos + n)]
    }
}
