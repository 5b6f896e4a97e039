/// A small hand-written gzip writer: greedy LZ77 over a 32 KiB window with a hash of the
/// next three bytes, coded with DEFLATE's fixed Huffman tables. Enough to write realistic
/// `.gz` feed archives (about 4x on feed CSV) without a C dependency beyond libzstd.
package final class GzipEncoder {
    private var out: [UInt8] = []
    private var bitBuf: UInt64 = 0
    private var bitCount = 0
    private var window: [UInt8] = []
    private var base = 0                  // absolute position of window[0]
    private var head = [Int](repeating: -1 << 40, count: 1 << 15)
    private var crc: UInt32 = 0xFFFF_FFFF
    private var size: UInt32 = 0

    private static let litCodes: [(code: UInt32, len: Int)] = (0..<288).map { v in
        let (c, l): (Int, Int)
        switch v {
        case 0..<144: (c, l) = (0x30 + v, 8)
        case 144..<256: (c, l) = (0x190 + v - 144, 9)
        case 256..<280: (c, l) = (v - 256, 7)
        default: (c, l) = (0xC0 + v - 280, 8)
        }
        return (reverse(UInt32(c), l), l)
    }
    private static let distCodes: [UInt32] = (0..<30).map { reverse(UInt32($0), 5) }
    private static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    private static let lengthSymbol: [Int] = (0...258).map { l in l < 3 ? 0 : (lengthBase.lastIndex { $0 <= l } ?? 0) }

    private static func reverse(_ c: UInt32, _ n: Int) -> UInt32 {
        var r: UInt32 = 0
        for i in 0..<n where c & (1 << UInt32(i)) != 0 { r |= 1 << UInt32(n - 1 - i) }
        return r
    }

    package init() {
        out = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]
    }

    @inline(__always)
    private func put(_ v: UInt32, _ n: Int) {
        bitBuf |= UInt64(v) << UInt64(bitCount)
        bitCount += n
        while bitCount >= 8 { out.append(UInt8(truncatingIfNeeded: bitBuf)); bitBuf >>= 8; bitCount -= 8 }
    }

    /// Compresses `data` as one fixed-Huffman block; returns the bytes ready so far.
    package func compress(_ data: [UInt8]) -> [UInt8] {
        for b in data { crc = GzipDecoder.crcTable[Int((crc ^ UInt32(b)) & 0xFF)] ^ (crc >> 8) }
        size &+= UInt32(truncatingIfNeeded: data.count)
        let start = window.count
        window.append(contentsOf: data)
        put(0, 1); put(1, 2)
        let lit = GzipEncoder.litCodes
        window.withUnsafeBufferPointer { w in
            var i = start
            let n = w.count
            while i < n {
                var matchLen = 0, matchDist = 0
                if i + 3 <= n {
                    let h = (Int(w[i]) << 10 ^ Int(w[i + 1]) << 5 ^ Int(w[i + 2])) & 0x7FFF
                    let cand = head[h] - base
                    head[h] = i + base
                    if cand >= 0, i - cand <= 32768, cand < i {
                        var l = 0
                        while l < 258, i + l < n, w[cand + l] == w[i + l] { l += 1 }
                        if l >= 3 { matchLen = l; matchDist = i - cand }
                    }
                }
                if matchLen > 0 {
                    let ls = GzipEncoder.lengthSymbol[matchLen]
                    let c = lit[257 + ls]
                    put(c.code, c.len)
                    put(UInt32(matchLen - GzipEncoder.lengthBase[ls]), GzipEncoder.lengthExtra[ls])
                    var ds = 0
                    while ds < 29 && GzipEncoder.distBase[ds + 1] <= matchDist { ds += 1 }
                    put(GzipEncoder.distCodes[ds], 5)
                    put(UInt32(matchDist - GzipEncoder.distBase[ds]), GzipEncoder.distExtra[ds])
                    for k in 1..<matchLen where i + k + 3 <= n {
                        let h = (Int(w[i + k]) << 10 ^ Int(w[i + k + 1]) << 5 ^ Int(w[i + k + 2])) & 0x7FFF
                        head[h] = i + k + base
                    }
                    i += matchLen
                } else {
                    let c = lit[Int(w[i])]
                    put(c.code, c.len)
                    i += 1
                }
            }
        }
        let e = lit[256]
        put(e.code, e.len)
        if window.count > 65536 {
            let drop = window.count - 32768
            window.removeFirst(drop)
            base += drop
        }
        defer { out.removeAll(keepingCapacity: true) }
        return out
    }

    /// Ends the stream: a final empty block, then the CRC-32 and length trailer.
    package func finish() -> [UInt8] {
        put(1, 1); put(1, 2)
        let e = GzipEncoder.litCodes[256]
        put(e.code, e.len)
        if bitCount > 0 { put(0, 8 - bitCount) }
        let c = ~crc
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: c >> UInt32(8 * i))) }
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: size >> UInt32(8 * i))) }
        defer { out.removeAll() }
        return out
    }
}
