/// A hand-written streaming gzip (RFC 1952) / DEFLATE (RFC 1951) decoder.
///
/// Pull-based: ``read(minimum:)`` decodes whole symbols until at least the requested number of
/// bytes is ready, so only the 32 KiB window and one output chunk stay in memory. Checks the
/// CRC-32 and length trailer of every member and throws on truncated or damaged input.
package final class GzipDecoder {
    private let pull: () throws(IngestError) -> [UInt8]?
    private var input: [UInt8] = []
    private var inPos = 0
    private var bitBuf: UInt64 = 0
    private var bitCount = 0
    private var eof = false

    private var window: [UInt8] = []      // decoded bytes, trimmed to the last 32 KiB between reads
    private var emitted = 0               // prefix of `window` already handed out
    private var checked = 0               // prefix of `window` already in the CRC
    private var crc: UInt32 = 0xFFFF_FFFF
    private var memberSize: UInt32 = 0

    private enum State { case header, blockStart, stored(Int), huffman, trailer, done }
    private var state = State.header
    private var lastBlock = false
    private var litTable = HuffmanTable()
    private var distTable = HuffmanTable()

    /// `pull` returns the next chunk of compressed bytes, or nil at end of input.
    package init(pull: @escaping () throws(IngestError) -> [UInt8]?) { self.pull = pull }

    /// Returns the next chunk of decoded bytes, or nil at the end of the stream.
    package func read(minimum: Int = 1 << 20) throws(IngestError) -> [UInt8]? {
        if window.count - emitted > 0 || !isDone {
            try decode(until: minimum)
        }
        guard window.count > emitted else { return nil }
        let out = Array(window[emitted...])
        checkPending()
        emitted = window.count
        if window.count > 1 << 16 {
            window.removeFirst(window.count - 32768)
            emitted = window.count
            checked = window.count
        }
        return out
    }

    private var isDone: Bool { if case .done = state { return true } else { return false } }

    private func checkPending() {
        guard checked < window.count else { return }
        memberSize &+= UInt32(truncatingIfNeeded: window.count - checked)
        var c = crc
        GzipDecoder.crcTable.withUnsafeBufferPointer { t in
            window.withUnsafeBufferPointer { p in
                for i in checked..<p.count { c = t[Int((c ^ UInt32(p[i])) & 0xFF)] ^ (c >> 8) }
            }
        }
        crc = c
        checked = window.count
    }

    // MARK: bits

    private func refill() throws(IngestError) -> Bool {
        if inPos < input.count { return true }
        if eof { return false }
        guard let next = try pull(), !next.isEmpty else { eof = true; return false }
        input = next
        inPos = 0
        return true
    }

    @inline(__always)
    private func need(_ n: Int) throws(IngestError) {
        while bitCount < n {
            guard try refill() else { throw .decompression("truncated gzip stream") }
            bitBuf |= UInt64(input[inPos]) << UInt64(bitCount)
            inPos += 1
            bitCount += 8
        }
    }

    /// Tops up the bit buffer without failing at end of input.
    @inline(__always)
    private func fill() throws(IngestError) {
        while bitCount <= 56 {
            if inPos >= input.count { guard try refill() else { return } }
            bitBuf |= UInt64(input[inPos]) << UInt64(bitCount)
            inPos += 1
            bitCount += 8
        }
    }

    @inline(__always)
    private func bits(_ n: Int) throws(IngestError) -> Int {
        if n == 0 { return 0 }
        try need(n)
        let v = Int(bitBuf & ((1 << UInt64(n)) - 1))
        bitBuf >>= UInt64(n)
        bitCount -= n
        return v
    }

    private func alignToByte() { let r = bitCount % 8; bitBuf >>= UInt64(r); bitCount -= r }

    private func byte() throws(IngestError) -> UInt8 { UInt8(try bits(8)) }

    // MARK: decoding

    private func decode(until minimum: Int) throws(IngestError) {
        while window.count - emitted < minimum {
            switch state {
            case .done:
                return
            case .header:
                guard try refillAligned() else {
                    state = .done
                    return
                }
                try readHeader()
                state = .blockStart
            case .blockStart:
                lastBlock = try bits(1) == 1
                switch try bits(2) {
                case 0:
                    alignToByte()
                    let len = try bits(16), nlen = try bits(16)
                    guard len == (~nlen & 0xFFFF) else { throw .decompression("corrupt gzip stream (stored block length)") }
                    state = .stored(len)
                case 1:
                    litTable = HuffmanTable.fixedLiteral
                    distTable = HuffmanTable.fixedDistance
                    state = .huffman
                case 2:
                    try readDynamicTables()
                    state = .huffman
                default:
                    throw .decompression("corrupt gzip stream (block type 3)")
                }
            case .stored(let remaining):
                if remaining == 0 { state = endOfBlock(); continue }
                let n = min(remaining, 65536)
                for _ in 0..<n { window.append(try byte()) }
                state = .stored(remaining - n)
            case .huffman:
                if try decodeSymbols(until: minimum) { state = endOfBlock() }
            case .trailer:
                alignToByte()
                var want: UInt32 = 0
                for i in 0..<4 { want |= UInt32(try byte()) << UInt32(8 * i) }
                var size: UInt32 = 0
                for i in 0..<4 { size |= UInt32(try byte()) << UInt32(8 * i) }
                checkPending()
                guard ~crc == want, memberSize == size else { throw .decompression("corrupt gzip stream (CRC or length mismatch)") }
                crc = 0xFFFF_FFFF
                memberSize = 0
                state = .header
            }
        }
    }

    private func endOfBlock() -> State { lastBlock ? .trailer : .blockStart }

    /// True when more input follows (another gzip member); false at a clean end.
    private func refillAligned() throws(IngestError) -> Bool {
        alignToByte()
        if bitCount > 0 { return true }
        return try refill()
    }

    private func readHeader() throws(IngestError) {
        guard try byte() == 0x1F, try byte() == 0x8B, try byte() == 8 else {
            throw .decompression("not a gzip stream")
        }
        let flags = try byte()
        for _ in 0..<6 { _ = try byte() }
        if flags & 4 != 0 {
            let xlen = try bits(16)
            for _ in 0..<xlen { _ = try byte() }
        }
        if flags & 8 != 0 { while try byte() != 0 {} }
        if flags & 16 != 0 { while try byte() != 0 {} }
        if flags & 2 != 0 { _ = try bits(16) }
    }

    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    private func readDynamicTables() throws(IngestError) {
        let hlit = try bits(5) + 257, hdist = try bits(5) + 1, hclen = try bits(4) + 4
        var clens = [UInt8](repeating: 0, count: 19)
        for i in 0..<hclen { clens[GzipDecoder.codeLengthOrder[i]] = UInt8(try bits(3)) }
        let clTable = try HuffmanTable(lengths: clens)
        var lengths = [UInt8]()
        lengths.reserveCapacity(hlit + hdist)
        while lengths.count < hlit + hdist {
            let sym = try decodeSymbol(clTable)
            switch sym {
            case 0..<16: lengths.append(UInt8(sym))
            case 16:
                guard let prev = lengths.last else { throw .decompression("corrupt gzip stream (repeat with no length)") }
                lengths.append(contentsOf: repeatElement(prev, count: 3 + (try bits(2))))
            case 17: lengths.append(contentsOf: repeatElement(0, count: 3 + (try bits(3))))
            default: lengths.append(contentsOf: repeatElement(0, count: 11 + (try bits(7))))
            }
        }
        guard lengths.count == hlit + hdist else { throw .decompression("corrupt gzip stream (code lengths overflow)") }
        litTable = try HuffmanTable(lengths: Array(lengths[0..<hlit]))
        distTable = try HuffmanTable(lengths: Array(lengths[hlit...]))
    }

    @inline(__always)
    private func decodeSymbol(_ table: HuffmanTable) throws(IngestError) -> Int {
        if bitCount < 15 { try fill() }
        let entry = table.entries[Int(bitBuf & 0x7FFF)]
        let len = Int(entry & 15)
        guard len != 0, len <= bitCount else {
            if bitCount < 15 && len > bitCount { throw .decompression("truncated gzip stream") }
            throw .decompression("corrupt gzip stream (bad Huffman code)")
        }
        bitBuf >>= UInt64(len)
        bitCount -= len
        return Int(entry >> 4)
    }

    private static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    /// Decodes symbols of the current block; returns true at the end-of-block symbol.
    private func decodeSymbols(until minimum: Int) throws(IngestError) -> Bool {
        while window.count - emitted < minimum {
            let sym = try decodeSymbol(litTable)
            if sym < 256 {
                window.append(UInt8(sym))
            } else if sym == 256 {
                return true
            } else {
                let li = sym - 257
                guard li < 29 else { throw .decompression("corrupt gzip stream (length symbol)") }
                let length = GzipDecoder.lengthBase[li] + (try bits(GzipDecoder.lengthExtra[li]))
                let ds = try decodeSymbol(distTable)
                guard ds < 30 else { throw .decompression("corrupt gzip stream (distance symbol)") }
                let dist = GzipDecoder.distBase[ds] + (try bits(GzipDecoder.distExtra[ds]))
                guard dist <= window.count else { throw .decompression("corrupt gzip stream (distance too far back)") }
                let start = window.count - dist
                window.append(contentsOf: repeatElement(0, count: length))
                window.withUnsafeMutableBufferPointer { w in
                    for i in 0..<length { w[start + dist + i] = w[start + i] }   // forward: overlaps repeat
                }
            }
        }
        return false
    }

    package static let crcTable: [UInt32] = (0..<256).map { i -> UInt32 in
        var c = UInt32(i)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}

/// A canonical Huffman code as a 15-bit direct lookup table: entry = symbol << 4 | length.
package struct HuffmanTable {
    package var entries: [UInt16] = []

    package init() {}

    package init(lengths: [UInt8]) throws(IngestError) {
        var count = [Int](repeating: 0, count: 16)
        for l in lengths { count[Int(l)] += 1 }
        count[0] = 0
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for bits in 1...15 {
            code = (code + count[bits - 1]) << 1
            next[bits] = code
        }
        var table = [UInt16](repeating: 0, count: 1 << 15)
        for (sym, l8) in lengths.enumerated() where l8 != 0 {
            let len = Int(l8)
            let c = next[len]
            next[len] += 1
            guard c < (1 << len) else { throw .decompression("corrupt gzip stream (over-subscribed code)") }
            var rev = 0
            for i in 0..<len where c & (1 << i) != 0 { rev |= 1 << (len - 1 - i) }
            let entry = UInt16(sym << 4 | len)
            var i = rev
            while i < 1 << 15 { table[i] = entry; i += 1 << len }
        }
        entries = table
    }

    package static let fixedLiteral: HuffmanTable = {
        var l = [UInt8](repeating: 8, count: 288)
        for i in 144..<256 { l[i] = 9 }
        for i in 256..<280 { l[i] = 7 }
        return try! HuffmanTable(lengths: l)
    }()

    package static let fixedDistance: HuffmanTable = try! HuffmanTable(lengths: [UInt8](repeating: 5, count: 30))
}
