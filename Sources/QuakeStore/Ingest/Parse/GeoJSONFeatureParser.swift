import QuakeFormat

/// Reads one GeoJSON feature into the row being built, in one pass over its bytes: keys are
/// matched as packed words, ASCII text is stored without a second scan, and nothing is copied
/// but the stored text. Owned by one ``GeoJSONFeedReader``; a struct, so the reader pays one
/// exclusivity check per feature rather than one per field.
struct GeoJSONFeatureParser {
    /// Text rules and what they met (double-encoded text).
    var rules: FieldRules
    /// Which timestamp fields of the feature held integers (the reader converts them).
    var integerTimes: UInt64 = 0
    private var scratch: [UInt8] = []
    /// The title the row's fields make, reused from row to row.
    private var madeTitle: [UInt8] = []
    private var hint = 0

    /// A key of at most 16 bytes, packed little-endian into two words.
    struct Key: Equatable {
        var low: UInt64
        var high: UInt64
        var count: Int
    }

    private static let properties: [(Key, Column)] = (Column.geoJSONProperties + Column.extraGeoJSONProperties).map {
        (Key(Array($0.name.utf8)), $0)
    }
    private static let propertiesKey = Key(Array("properties".utf8)), geometryKey = Key(Array("geometry".utf8))
    private static let idKey = Key(Array("id".utf8)), coordinatesKey = Key(Array("coordinates".utf8))
    private let keys: [(Key, Column)] = GeoJSONFeatureParser.properties

    init(rules: FieldRules) {
        self.rules = rules
    }

    /// Reads the feature at the cursor; returns the columns it held.
    mutating func feature(_ c: inout JSONCursor, _ rows: inout RowBuilder) throws -> UInt64 {
        integerTimes = 0
        var mask: UInt64 = 0
        try c.expect(UInt8(ascii: "{"))
        if c.peek() == UInt8(ascii: "}") { throw FieldError(reason: "empty feature") }
        repeat {
            let key = try self.key(&c)
            try c.expect(UInt8(ascii: ":"))
            if key == GeoJSONFeatureParser.propertiesKey {
                if try c.literal() == nil { mask |= try properties(&c, &rows) }
            } else if key == GeoJSONFeatureParser.geometryKey {
                if try c.literal() == nil { mask |= try geometry(&c, &rows) }
            } else if key == GeoJSONFeatureParser.idKey {
                if try c.literal() == nil {
                    try text(&c, .id, &rows)
                    mask |= Column.id.bit
                }
            } else {
                try c.skipValue()
            }
        } while try c.more(closer: UInt8(ascii: "}"))
        if mask & Column.title.bit != 0 { dropDerivedTitle(&rows) }
        return mask
    }

    /// Stores no title that follows from the row's magnitude, type and place (USGS's are all such):
    /// it is made again when read. The title stays carried, so the row's version clears any older one.
    private mutating func dropDerivedTitle(_ rows: inout RowBuilder) {
        let mag = rows.currentInt(.mag)
        // moved out and back, not copied: no allocation per row
        var titleScratch: [UInt8] = []
        swap(&titleScratch, &madeTitle)
        let follows = rows.withCurrentText(.title) { title in
            !title.isEmpty && rows.withCurrentText(.type) { type in
                rows.withCurrentText(.place) { place in
                    USGSTitle.follows(title, mag: mag, type: type, place: place, scratch: &titleScratch)
                }
            }
        }
        swap(&titleScratch, &madeTitle)
        if follows { rows.clearCurrentText(.title) }
    }

    /// Reads a key; one longer than 16 bytes, or with an escape, matches no key of ours.
    @inline(__always)
    private mutating func key(_ c: inout JSONCursor) throws -> Key {
        let span = try c.scanString()
        // SAFETY: scanString's span lies in 0..<c.end <= c.p.count; Key copies at most 16 bytes of it.
        if !span.escaped { return Key(c.p, span.start, span.end) }
        try c.unescape(span, into: &scratch)
        // SAFETY: Key copies at most 16 bytes of `$0` (0..<count); the pointer does not escape the closure.
        return scratch.withUnsafeBytes { Key($0, 0, $0.count) }
    }

    /// Reads a string value into text column `col` (or any column through the field rules).
    @inline(__always)
    private mutating func text(_ c: inout JSONCursor, _ col: Column, _ rows: inout RowBuilder) throws {
        let span = try c.scanString()
        if !span.escaped {
            // SAFETY: the span lies inside the cursor's bytes; setText and parseField copy what they keep.
            let bytes = c.bytes(span)
            // ASCII text is valid UTF-8, already in NFC, and never double-encoded: stored as it is
            let isText = col.kind == .category || col.kind == .text || col.kind == .place
            if span.ascii && !bytes.isEmpty && isText {
                rows.setText(col, bytes)
            } else {
                try rows.parseField(col, bytes, &rules)
            }
            return
        }
        try c.unescape(span, into: &scratch)
        // SAFETY: `$0` is used only inside the closure; parseField copies the bytes it keeps.
        // SAFETY (exclusivity): `scratch` is read while `rules` changes, two stored properties.
        try scratch.withUnsafeBytes { try rows.parseField(col, $0, &rules) }
    }

    /// Reads a string time: epoch digits are an integer time (the reader converts them), any
    /// other text goes through the field rules.
    private mutating func stringTime(_ c: inout JSONCursor, _ col: Column, _ rows: inout RowBuilder) throws {
        let span = try c.scanString()
        if !span.escaped {
            let bytes = c.bytes(span)
            if let value = GeoJSONFeatureParser.integer(bytes) {
                rows.setInt(col, value)
                integerTimes |= col.bit
            } else {
                try rows.parseField(col, bytes, &rules)
            }
            return
        }
        try c.unescape(span, into: &scratch)
        // SAFETY: `$0` is used only inside the closure; integer reads below its count.
        if let value = scratch.withUnsafeBytes({ GeoJSONFeatureParser.integer($0) }) {
            rows.setInt(col, value)
            integerTimes |= col.bit
        } else {
            // SAFETY: `$0` is used only inside the closure; parseField copies the bytes it keeps.
            // SAFETY (exclusivity): `scratch` is read while `rules` changes, two stored properties.
            try scratch.withUnsafeBytes { try rows.parseField(col, $0, &rules) }
        }
    }

    private mutating func geometry(_ c: inout JSONCursor, _ rows: inout RowBuilder) throws -> UInt64 {
        var mask: UInt64 = 0
        try c.expect(UInt8(ascii: "{"))
        if c.peek() == UInt8(ascii: "}") {
            c.i += 1
            return 0
        }
        repeat {
            let coordinates = try key(&c) == GeoJSONFeatureParser.coordinatesKey
            try c.expect(UInt8(ascii: ":"))
            guard coordinates else {
                try c.skipValue()
                continue
            }
            try c.expect(UInt8(ascii: "["))
            var position = 0
            if c.peek() != UInt8(ascii: "]") {
                repeat {
                    if position < 3 {
                        let col: Column = position == 0 ? .longitude : position == 1 ? .latitude : .depth
                        if try c.literal() == nil { try rows.parseField(col, c.number(), &rules) }
                        mask |= col.bit
                    } else {
                        try c.skipValue()
                    }
                    position += 1
                } while try c.more(closer: UInt8(ascii: "]"))
            } else {
                c.i += 1
            }
        } while try c.more(closer: UInt8(ascii: "}"))
        return mask
    }

    /// The column property `k` names, trying the one after the last found first (feeds keep
    /// one order).
    @inline(__always)
    private mutating func column(_ k: Key) -> Column? {
        let count = keys.count
        var at = hint < count ? hint : 0
        for _ in 0..<count {
            if keys[at].0 == k {
                hint = at + 1
                return keys[at].1
            }
            at = at + 1 == count ? 0 : at + 1
        }
        return nil
    }

    private mutating func properties(_ c: inout JSONCursor, _ rows: inout RowBuilder) throws -> UInt64 {
        var mask: UInt64 = 0
        try c.expect(UInt8(ascii: "{"))
        if c.peek() == UInt8(ascii: "}") {
            c.i += 1
            return 0
        }
        repeat {
            let column = column(try key(&c))
            try c.expect(UInt8(ascii: ":"))
            guard let col = column else {
                try c.skipValue()
                continue
            }
            mask |= col.bit
            if let lit = try c.literal() {
                if lit != UInt8(ascii: "n") && col.kind == .decimal {   // booleans as 0/1
                    rows.setInt(col, ScaledDecimal.fromInteger(lit == UInt8(ascii: "t") ? 1 : 0))
                }
                continue
            }
            let next = c.peek()
            if next == UInt8(ascii: "\"") {
                if col.kind == .timestamp { try stringTime(&c, col, &rows) } else { try text(&c, col, &rows) }
            } else if next == UInt8(ascii: "{") || next == UInt8(ascii: "[") {
                try c.skipValue()
            } else {
                let num = c.number()
                if col.kind == .timestamp {
                    guard let value = GeoJSONFeatureParser.integer(num) else {
                        throw FieldError(reason: "\(col): not epoch milliseconds: '\(RowBatch.show(num))'")
                    }
                    rows.setInt(col, value)
                    integerTimes |= col.bit
                } else {
                    try rows.parseField(col, num, &rules)
                }
            }
        } while try c.more(closer: UInt8(ascii: "}"))
        return mask
    }

    static func integer(_ p: UnsafeRawBufferPointer) -> Int64? {
        guard !p.isEmpty else { return nil }
        var at = 0
        var neg = false
        // SAFETY: p is non-empty before p[0], and p[at] is read only while at < p.count.
        if p[0] == UInt8(ascii: "-") {
            neg = true
            at = 1
        }
        guard at < p.count else { return nil }
        var value: Int64 = 0
        while at < p.count {
            let digit = Int64(p[at]) - 48
            guard digit >= 0 && digit <= 9, value < Int64.max / 10 - 10 else { return nil }
            value = value * 10 + digit
            at += 1
        }
        return neg ? -value : value
    }
}

extension GeoJSONFeatureParser.Key {
    init(_ bytes: [UInt8]) {
        // SAFETY: Key copies at most 16 bytes of `$0` (0..<count); the pointer does not escape the closure.
        self = bytes.withUnsafeBytes { Self($0, 0, $0.count) }
    }

    /// Bytes `start..<end` of `p`; a key longer than 16 bytes keeps its length only (and so
    /// matches none of ours, which are all shorter).
    @inline(__always)
    init(_ p: UnsafeRawBufferPointer, _ start: Int, _ end: Int) {
        assert(start >= 0 && start <= end && end <= p.count, "key bytes \(start)..<\(end) outside the buffer")
        let length = end - start
        count = length
        guard length <= 16 else {
            low = 0
            high = 0
            return
        }
        if start + 16 <= p.count {
            // SAFETY: start + 16 <= p.count: both words lie inside `p`.
            let first = p.loadUnaligned(fromByteOffset: start, as: UInt64.self)
            let second = p.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self)
            low = first & Self.mask(length)
            high = length > 8 ? second & Self.mask(length - 8) : 0
        } else {
            low = 0
            high = 0
            // SAFETY: the else branch reads p[start + k] with k < length = end - start, and end <= p.count.
            for k in 0..<length {
                let shifted = UInt64(p[start + k]) << (8 * UInt64(k & 7))
                if k < 8 { low |= shifted } else { high |= shifted }
            }
        }
    }

    /// The low `n` bytes of a word.
    @inline(__always)
    static func mask(_ n: Int) -> UInt64 { n >= 8 ? ~0 : (1 << (8 * UInt64(n))) - 1 }
}
