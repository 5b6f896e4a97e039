/// The contract every column codec of format v2 follows (after DuckDB's `CompressionFunction`):
/// estimate, encode one chunk and compute its statistics, and decode the whole chunk or any row
/// range of it. A chunk is one block of one column; its codec id sits in the chunk directory.
package protocol ColumnCodec {
    /// The in-memory column the codec encodes from: `[Int64]` or ``ByteArena``.
    associatedtype Values
    static var id: CodecID { get }
    /// Bytes `encode` would write for `rows` of `values`.
    static func analyze(_ values: Values, rows: Range<Int>) -> Int
    /// Appends the encoded chunk for `rows` of `values` to `out` and returns its statistics.
    static func encode(_ values: Values, rows: Range<Int>, into out: inout [UInt8]) -> ChunkStats
    /// Decodes rows `rows` of a chunk holding `count` rows.
    static func decode(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>,
                       as form: VectorForm) throws(QuakeError) -> ColumnVector
}

/// A numeric codec that can evaluate a range predicate on encoded values, without decoding.
package protocol RangeSelectingCodec: ColumnCodec {
    /// Appends to `out` the chunk-relative rows in `rows` whose value lies in `range` (nulls fail).
    /// Returns false when the chunk cannot answer on encoded values; the caller then decodes.
    static func select(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>, _ range: RangePredicate,
                       into out: inout [UInt32]) throws(QuakeError) -> Bool
}

/// Codec ids as stored in the chunk directory.
package enum CodecID: UInt8, CaseIterable, Sendable {
    /// Frame of reference with bit packing, per 1024-row miniblock, plain or delta (timestamps).
    case forInteger = 1
    /// Scaled decimals brought to one scale, then frame of reference (hot numeric columns).
    case forDecimal = 2
    /// Category dictionary with bit-packed codes.
    case dictionary = 3
    /// Lengths and bytes, zstd-compressed (ids, urls, titles).
    case zstdText = 4
    /// Place pattern (distance, direction, locality dictionary), zstd-compressed.
    case zstdPlace = 5
    /// Byte planes of scaled decimals, zstd-compressed (rarely read numeric columns).
    case zstdDecimal = 6
    /// Frames of 4096 rows of one of the zstd codecs, each decodable alone.
    case zstdFramed = 7
    /// Place names: raw locality dictionary, bit-packed codes, zstd frames of distances.
    case placeCodes = 8

    package var name: String {
        switch self {
        case .forInteger: return "for-int"
        case .forDecimal: return "for-decimal"
        case .dictionary: return "dictionary"
        case .zstdText: return "zstd-text"
        case .zstdPlace: return "zstd-place"
        case .zstdDecimal: return "zstd-decimal"
        case .zstdFramed: return "zstd-framed"
        case .placeCodes: return "place-codes"
        }
    }

    /// How many leading bytes of a chunk its directory checksum covers: the head of a chunk
    /// whose frames carry their own sums, else (and for a head that does not parse) the whole.
    package func covered(_ chunk: UnsafeRawBufferPointer, count: Int) -> Int {
        // SAFETY: `chunk` is only borrowed for this call; the header parsers bounds-check every read.
        switch self {
        case .zstdFramed: return (try? FramedCodec.covered(chunk, count: count)) ?? chunk.count
        case .placeCodes: return (try? PlaceCodesCodec.covered(chunk, count: count)) ?? chunk.count
        case .forInteger, .forDecimal: return (try? granuleSums(chunk, count: count))??.dataStart ?? chunk.count
        default: return chunk.count
        }
    }

    /// The chunk's per-granule sums of packed data (``GranuleSums``), for codecs and chunks that
    /// have them; nil otherwise.
    package func granuleSums(_ chunk: UnsafeRawBufferPointer, count: Int)
        throws(QuakeError) -> GranuleSums.Table? {
        switch self {
        case .forInteger: return try ForIntegerCodec.granuleSums(chunk, count: count)
        case .forDecimal: return try ForDecimalCodec.granuleSums(chunk, count: count)
        default: return nil
        }
    }

    /// Decodes a chunk with this codec.
    /// `checks` remembers the frames of framed chunks whose sums were checked.
    package func decode(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>,
                as form: VectorForm, checks: FrameChecks? = nil) throws(QuakeError) -> ColumnVector {
        // SAFETY: `chunk` is only borrowed for this call; each codec bounds-checks its reads against
        // chunk.count (throwing on damage) and copies the decoded values out.
        switch self {
        case .forInteger: return try ForIntegerCodec.decode(chunk, count: count, rows: rows, as: form)
        case .forDecimal: return try ForDecimalCodec.decode(chunk, count: count, rows: rows, as: form)
        case .dictionary: return try DictionaryCodec.decode(chunk, count: count, rows: rows, as: form)
        case .zstdText: return try ZstdTextCodec.decode(chunk, count: count, rows: rows, as: form)
        case .zstdPlace: return try ZstdPlaceCodec.decode(chunk, count: count, rows: rows, as: form)
        case .zstdDecimal: return try ZstdDecimalCodec.decode(chunk, count: count, rows: rows, as: form)
        case .zstdFramed: return try FramedCodec.decode(chunk, count: count, rows: rows, as: form, checks: checks)
        case .placeCodes: return try PlaceCodesCodec.decode(chunk, count: count, rows: rows, as: form, checks: checks)
        }
    }

    /// Rows of `rows` whose value lies in `range`, on encoded values where the codec can.
    package func select(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>, _ range: RangePredicate,
                into out: inout [UInt32]) throws(QuakeError) -> Bool {
        // SAFETY: `chunk` is only borrowed for this call; the codecs bounds-check their reads and throw on damage.
        switch self {
        case .forInteger: return try ForIntegerCodec.select(chunk, count: count, rows: rows, range, into: &out)
        case .forDecimal: return try ForDecimalCodec.select(chunk, count: count, rows: rows, range, into: &out)
        default: return false
        }
    }
}

extension CodecID {
    /// The rows of `among` (ascending chunk rows) whose value lies in `range`, each read alone;
    /// false when the codec cannot, and the caller must decode.
    package func select(_ chunk: UnsafeRawBufferPointer, count: Int, among: [UInt32], _ range: RangePredicate,
                        into out: inout [UInt32]) throws(QuakeError) -> Bool {
        // SAFETY: `chunk` is only borrowed for this call; ForDecimalCodec bounds-checks its reads.
        guard self == .forDecimal else { return false }
        return try ForDecimalCodec.select(chunk, count: count, among: among, range, into: &out)
    }
}

/// Which in-memory form a numeric chunk decodes to.
package enum VectorForm: Sendable {
    /// The stored form: `Int64` timestamps or scaled decimals, strings as their blocks.
    case stored
    /// Decimals as `Double` (NaN for null); other columns as stored.
    case doubles
}

/// A decoded row range of one column.
package enum ColumnVector: Sendable {
    case ints([Int64])
    case doubles([Double])
    case category(CategoryBlock)
    case text(ByteArena)
    case place(PlaceBlock)

    package var count: Int {
        switch self {
        case .ints(let values): return values.count
        case .doubles(let values): return values.count
        case .category(let category): return category.codes.count
        case .text(let arena): return arena.count
        case .place(let place): return place.locality.count
        }
    }
}

/// Statistics of one chunk, computed by its codec while encoding.
package struct ChunkStats: Sendable, Equatable {
    package var nulls: Int
    /// Smallest and largest non-null value: `Int64` for timestamps, `Double` bit pattern for
    /// decimals, 0 for strings (and for an all-null chunk).
    package var min: Int64
    package var max: Int64

    package static let none = ChunkStats(nulls: 0, min: 0, max: 0)
}

/// A range on a numeric column, as the kernels and codecs see it: timestamps compare as
/// `Int64` (`lower <= v < upper`), decimals as `Double` with inclusive or exclusive ends.
package enum RangePredicate: Sendable, Equatable {
    case time(lower: Int64?, upper: Int64?)
    case number(lower: RangeBound?, upper: RangeBound?)

    /// True when `v` (a decoded double, NaN for null) lies in the range. Inlinable: the engine
    /// calls it per histogram entry and per row from another module.
    @inlinable @inline(__always)
    package func contains(_ v: Double) -> Bool {
        guard case .number(let lo, let hi) = self else { return false }
        if let lo { if lo.inclusive ? !(v >= lo.value) : !(v > lo.value) { return false } }
        if let hi { if hi.inclusive ? !(v <= hi.value) : !(v < hi.value) { return false } }
        return !v.isNaN
    }

    /// True when `v` (a stored timestamp, `RowBatch.null` for null) lies in the range.
    @inlinable @inline(__always)
    package func contains(_ v: Int64) -> Bool {
        guard case .time(let lo, let hi) = self, v != RowBatch.null else { return false }
        return v >= (lo ?? Int64.min) && v < (hi ?? Int64.max)
    }
}
