import Foundation
import QuakeFormat
import QuakeStore

/// One column chunk of one row group, encoded and compressed: an optional dictionary page and
/// one data page (format v1 headers), zstd-compressed, with min, max and null count.
package struct EncodedChunk {
    package var bytes: [UInt8] = []
    /// Offsets of the pages inside `bytes`.
    package var dictionaryPage: Int?
    package var dataPage = 0
    package var uncompressedSize = 0
    /// Bytes of `bytes` once written (the pages themselves are dropped then).
    package var compressedSize = 0
    package var values = 0
    package var nulls = 0
    package var min: [UInt8]?
    package var max: [UInt8]?
    package var encodings: [Int32] = []
}

/// Encodes a column of a ``RowBatch`` row range into an ``EncodedChunk``.
package enum ParquetChunkEncoder {
    package static let plain: Int32 = 0, rle: Int32 = 3, rleDictionary: Int32 = 8
    package static let zstdLevel: Int32 = 1

    /// Pages larger than this cannot be described by the format's 32-bit page sizes.
    package static let maxPageBytes = Int(Int32.max)

    /// The chunk of `column`'s `rows` in `b`, typed as ``ParquetColumn/init(_:)`` says.
    package static func encode(_ b: RowBatch, rows: Range<Int>, _ column: Column) throws(QuakeError) -> EncodedChunk {
        let pc = ParquetColumn(column)
        var chunk = EncodedChunk()
        chunk.values = rows.count
        var defs = [UInt32]()
        if !pc.required { defs.reserveCapacity(rows.count) }
        var values: [UInt8] = []
        var dictionaryValues: [UInt8]?
        var dictionaryCount = 0
        switch pc.type {
        case .timestamp: values = int64s(b.ints[column.rawValue], rows, pc.required, &defs, &chunk) { $0 }
        case .int64:
            values = int64s(b.ints[column.rawValue], rows, pc.required, &defs, &chunk, ScaledDecimal.roundedInteger)
        case .float64: values = doubles(b.ints[column.rawValue], rows, pc.required, &defs, &chunk)
        case .utf8:
            let texts = b.text[column.rawValue]
            if pc.dictionary {
                let (dict, indices) = dictionaryIndices(texts, rows, pc.required, &defs, &chunk)
                dictionaryCount = dict.count
                var page: [UInt8] = []
                var lo: Range<Int>?
                var hi: Range<Int>?
                // SAFETY: k < dict.count, so each range lies in the dictionary's bytes; `all` stays in the closure.
                dict.arena.bytes.withUnsafeBytes { all in
                    for k in 0..<dict.count {
                        let range = dict.arena.range(k)
                        appendLength(range.count, &page)
                        page.append(contentsOf: all[range])
                        if lo.map({ less(all, range, $0) }) ?? true { lo = range }
                        if hi.map({ less(all, $0, range) }) ?? true { hi = range }
                    }
                }
                if let lo, let hi {
                    chunk.min = Array(dict.arena.bytes[lo])
                    chunk.max = Array(dict.arena.bytes[hi])
                }
                dictionaryValues = page
                let width = Swift.max(1, HybridEncoder.width(dict.count - 1))
                var enc = HybridEncoder(bitWidth: width)
                // SAFETY: `$0` spans the indices' count values and does not escape the closure.
                indices.withUnsafeBufferPointer { enc.encode($0) }
                values = [UInt8(width)] + enc.bytes
            } else {
                values = byteArrays(texts, rows, pc.required, &defs, &chunk)
            }
        }
        let dictionary = dictionaryValues.map { (page: $0, count: dictionaryCount) }
        try appendPages(&chunk, pc, rows: rows.count, definitions: defs, values: values, dictionary: dictionary)
        return chunk
    }

    /// Appends a chunk's pages: the dictionary page when there is one, then the data page of
    /// `rows` values: the definition levels (for an optional column) and the encoded `values`.
    static func appendPages(_ chunk: inout EncodedChunk, _ pc: ParquetColumn, rows: Int, definitions: [UInt32],
                            values: [UInt8], dictionary: (page: [UInt8], count: Int)?) throws(QuakeError) {
        if let dictionary {
            chunk.dictionaryPage = 0
            try appendPage(&chunk, pc, type: 2, body: dictionary.page) { header in
                header.structure(7) { pageHeader in
                    pageHeader.i32(1, Int32(truncatingIfNeeded: dictionary.count))
                    pageHeader.i32(2, plain)
                }
            }
            chunk.encodings = [plain, rle, rleDictionary]
        } else {
            chunk.encodings = [plain, rle]
        }
        var body: [UInt8] = []
        if !pc.required {
            var encoder = HybridEncoder(bitWidth: 1)
            // SAFETY: `$0` spans the levels' count values and does not escape the closure.
            definitions.withUnsafeBufferPointer { encoder.encode($0) }
            appendUInt32(UInt32(encoder.bytes.count), &body)
            body.append(contentsOf: encoder.bytes)
        }
        body.append(contentsOf: values)
        chunk.dataPage = chunk.bytes.count
        let encoding = dictionary == nil ? plain : rleDictionary
        try appendPage(&chunk, pc, type: 0, body: body) { header in
            header.structure(5) { pageHeader in
                pageHeader.i32(1, Int32(truncatingIfNeeded: rows))
                pageHeader.i32(2, encoding)
                pageHeader.i32(3, rle)
                pageHeader.i32(4, rle)
            }
        }
    }

    /// Appends a page header and the compressed body; `kind` writes the type-specific header.
    /// `type` is DATA_PAGE (0) or DICTIONARY_PAGE (2).
    private static func appendPage(_ chunk: inout EncodedChunk, _ pc: ParquetColumn, type: Int32, body: [UInt8],
                                   _ kind: (inout ThriftCompactWriter) -> Void) throws(QuakeError) {
        let compressed = Zstd.compress(body, level: zstdLevel)
        guard body.count <= maxPageBytes, compressed.count <= maxPageBytes else {
            throw .io("column \(pc.name): a Parquet page of \(body.count) bytes exceeds the format's 2 GiB limit")
        }
        var header = ThriftCompactWriter()
        header.beginStruct()
        header.i32(1, type)
        header.i32(2, Int32(body.count))
        header.i32(3, Int32(compressed.count))
        kind(&header)
        header.endStruct()
        chunk.bytes.append(contentsOf: header.bytes)
        chunk.bytes.append(contentsOf: compressed)
        chunk.uncompressedSize += header.bytes.count + body.count
    }

    package static func appendUInt32(_ v: UInt32, _ out: inout [UInt8]) {
        out.append(UInt8(v & 0xFF))
        out.append(UInt8(v >> 8 & 0xFF))
        out.append(UInt8(v >> 16 & 0xFF))
        out.append(UInt8(v >> 24))
    }

    package static func appendLength(_ n: Int, _ out: inout [UInt8]) {
        appendUInt32(UInt32(truncatingIfNeeded: n), &out)
    }

    package static func appendUInt64(_ v: UInt64, _ out: inout [UInt8]) {
        // SAFETY: the closure copies the 8 bytes of a local value; the pointer does not escape it.
        withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
    }

    /// Unsigned lexicographic order of two ranges of `all`.
    package static func less(_ all: UnsafeRawBufferPointer, _ a: Range<Int>, _ b: Range<Int>) -> Bool {
        let common = Swift.min(a.count, b.count)
        if common > 0, let base = all.baseAddress {
            assert(a.upperBound <= all.count && b.upperBound <= all.count, "ranges outside the buffer")
            // SAFETY: both ranges lie inside `all`, and `common` is at most either length.
            let order = memcmp(base + a.lowerBound, base + b.lowerBound, common)
            if order != 0 { return order < 0 }
        }
        return a.count < b.count
    }

    /// PLAIN 8-byte values of the non-null rows, written straight into one allocation;
    /// `bits` maps a stored value to its little-endian bit pattern.
    @inline(__always)
    private static func fixed(_ v: [Int64], _ rows: Range<Int>, _ required: Bool, _ defs: inout [UInt32],
                              _ chunk: inout EncodedChunk, _ bits: (Int64) -> UInt64) -> [UInt8] {
        var nulls = 0
        let out = [UInt8](uninitializedCount: rows.count * 8) { buf, initialized in
            var written = 0
            guard let base = buf.baseAddress else {
                initialized = 0
                return
            }
            // SAFETY: rows lie inside the column `v`, so p[i] is in bounds; `p` does not escape the closure.
            v.withUnsafeBufferPointer { p in
                for i in rows {
                    let stored = p[i]
                    if stored == RowBatch.null {
                        nulls += 1
                        defs.append(0)
                        continue
                    }
                    if !required { defs.append(1) }
                    assert(written + 8 <= buf.count, "more values than rows")
                    // SAFETY: at most rows.count values of 8 bytes go into a buffer of rows.count * 8.
                    UnsafeMutableRawPointer(base + written).storeBytes(of: bits(stored).littleEndian, as: UInt64.self)
                    written += 8
                }
            }
            initialized = written
        }
        chunk.nulls += nulls
        return out
    }

    /// INT64 values, each stored value mapped by `integer` (a time as is, a decimal rounded).
    private static func int64s(_ v: [Int64], _ rows: Range<Int>, _ required: Bool, _ defs: inout [UInt32],
                               _ chunk: inout EncodedChunk, _ integer: (Int64) -> Int64) -> [UInt8] {
        var lo = Int64.max
        var hi = Int64.min
        let out = fixed(v, rows, required, &defs, &chunk) { stored in
            let value = integer(stored)
            lo = Swift.min(lo, value)
            hi = Swift.max(hi, value)
            return UInt64(bitPattern: value)
        }
        if chunk.nulls < rows.count {
            var minBytes: [UInt8] = []
            var maxBytes: [UInt8] = []
            appendUInt64(UInt64(bitPattern: lo), &minBytes)
            appendUInt64(UInt64(bitPattern: hi), &maxBytes)
            chunk.min = minBytes
            chunk.max = maxBytes
        }
        return out
    }

    private static func doubles(_ v: [Int64], _ rows: Range<Int>, _ required: Bool, _ defs: inout [UInt32],
                                _ chunk: inout EncodedChunk) -> [UInt8] {
        var lo = Double.infinity
        var hi = -Double.infinity
        let out = fixed(v, rows, required, &defs, &chunk) { stored in
            let double = ScaledDecimal.double(stored)
            lo = Swift.min(lo, double)
            hi = Swift.max(hi, double)
            return double.bitPattern
        }
        if chunk.nulls < rows.count {
            // the format's rule for signed zeros: a zero minimum is -0.0, a zero maximum +0.0
            if lo == 0 { lo = -0.0 }
            if hi == 0 { hi = 0.0 }
            var minBytes: [UInt8] = []
            var maxBytes: [UInt8] = []
            appendUInt64(lo.bitPattern, &minBytes)
            appendUInt64(hi.bitPattern, &maxBytes)
            chunk.min = minBytes
            chunk.max = maxBytes
        }
        return out
    }

    /// Calls `body` with the byte range of every non-null value of `rows`, recording
    /// definition levels and nulls.
    @inline(__always)
    private static func eachText(_ a: ByteArena, _ rows: Range<Int>, _ required: Bool, _ defs: inout [UInt32],
                                 _ chunk: inout EncodedChunk, _ body: (UnsafeRawBufferPointer, Range<Int>) -> Void) {
        // SAFETY: rows lie inside the arena, so each range lies in its bytes; `all` is only lent to `body`,
        // which copies what it keeps.
        a.bytes.withUnsafeBytes { all in
            for i in rows {
                let range = a.range(i)
                if range.isEmpty {
                    chunk.nulls += 1
                    defs.append(0)
                    continue
                }
                if !required { defs.append(1) }
                body(all, range)
            }
        }
    }

    private static func byteArrays(_ a: ByteArena, _ rows: Range<Int>, _ required: Bool, _ defs: inout [UInt32],
                                   _ chunk: inout EncodedChunk) -> [UInt8] {
        var out: [UInt8] = []
        var lo: Range<Int>?
        var hi: Range<Int>?
        eachText(a, rows, required, &defs, &chunk) { all, range in
            appendLength(range.count, &out)
            out.append(contentsOf: all[range])
            if lo.map({ less(all, range, $0) }) ?? true { lo = range }
            if hi.map({ less(all, $0, range) }) ?? true { hi = range }
        }
        if let lo, let hi {
            chunk.min = Array(a.bytes[lo])
            chunk.max = Array(a.bytes[hi])
        }
        return out
    }

    private static func dictionaryIndices(_ a: ByteArena, _ rows: Range<Int>, _ required: Bool, _ defs: inout [UInt32],
                                          _ chunk: inout EncodedChunk) -> (ByteDictionary, [UInt32]) {
        var dict = ByteDictionary()
        var indices: [UInt32] = []
        indices.reserveCapacity(rows.count)
        eachText(a, rows, required, &defs, &chunk) { all, r in
            // SAFETY: `r` is a range of the arena's bytes (eachText), so the slice lies in `all`; index copies it.
            indices.append(dict.index(UnsafeRawBufferPointer(rebasing: all[r])))
        }
        return (dict, indices)
    }
}
