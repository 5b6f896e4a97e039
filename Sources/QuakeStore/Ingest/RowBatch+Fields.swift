import QuakeFormat
extension RowBatch {
    /// Parses feed text for column `c` into the row being built. An empty field is null. Text is
    /// stored in Unicode's composed form (NFC); `rules` says how to read times and whether to
    /// repair double-encoded text, and counts what it met.
    package mutating func parseField(_ c: Column, _ p: UnsafeRawBufferPointer, _ rules: inout FieldRules) throws(FieldError) {
        if p.isEmpty { return }
        switch c.kind {
        case .timestamp:
            if let f = rules.timeFormat, let t = f.parse(p) { setInt(c, t); return }
            do { setInt(c, try Timestamp.parse(p)) } catch {
                if let f = rules.timeFormat {
                    throw FieldError(reason: "\(c): matches neither --time-format '\(f.pattern)' nor ISO 8601: '\(RowBatch.show(p))'")
                }
                throw FieldError(reason: "\(c): not an ISO-8601 time: '\(RowBatch.show(p))'")
            }
        case .decimal:
            do { setInt(c, try ScaledDecimal.parse(p)) } catch {
                throw FieldError(reason: "\(c): not a number: '\(RowBatch.show(p))'")
            }
        case .category, .text, .place:
            guard RowBatch.validUTF8(p) else { throw FieldError(reason: "\(c): invalid UTF-8") }
            if let text = rules.normalized(p) { text.withUnsafeBytes { setText(c, $0) } } else { setText(c, p) }
        }
    }

    /// Checks the row being built: required fields, coordinate ranges.
    package func validateCurrentRow() throws(FieldError) {
        let r = count
        let t = ints[Column.time.rawValue][r]
        if t == RowBatch.null { throw FieldError(reason: "time: missing") }
        if !Timestamp.storable.contains(t) { throw FieldError(reason: "time: \(t) is outside years 0000-9999") }
        let u = ints[Column.updated.rawValue][r]
        if u != RowBatch.null, !Timestamp.storable.contains(u) {
            throw FieldError(reason: "updated: \(u) is outside years 0000-9999")
        }
        if text[Column.id.rawValue].isNull(r) { throw FieldError(reason: "id: missing") }
        let lat = ScaledDecimal.double(ints[Column.latitude.rawValue][r])
        if lat.isNaN { throw FieldError(reason: "latitude: missing") }
        if !(lat >= -90 && lat <= 90) { throw FieldError(reason: "latitude: \(lat) out of range [-90, 90]") }
        let lon = ScaledDecimal.double(ints[Column.longitude.rawValue][r])
        if lon.isNaN { throw FieldError(reason: "longitude: missing") }
        if !(lon >= -180 && lon <= 180) { throw FieldError(reason: "longitude: \(lon) out of range [-180, 180]") }
    }

    package static func show(_ p: UnsafeRawBufferPointer) -> String {
        String(decoding: p.prefix(40), as: UTF8.self)
    }

    /// UTF-8 validity, with an ASCII fast path.
    @inline(__always)
    package static func validUTF8(_ p: UnsafeRawBufferPointer) -> Bool {
        var ascii = true
        for b in p where b >= 0x80 { ascii = false; break }
        if ascii { return true }
        var i = 0
        let n = p.count
        while i < n {
            let b = p[i]
            if b < 0x80 { i += 1; continue }
            let len: Int
            var cp: UInt32
            if b & 0xE0 == 0xC0 { len = 2; cp = UInt32(b & 0x1F) }
            else if b & 0xF0 == 0xE0 { len = 3; cp = UInt32(b & 0x0F) }
            else if b & 0xF8 == 0xF0 { len = 4; cp = UInt32(b & 0x07) }
            else { return false }
            guard i + len <= n else { return false }
            for k in 1..<len {
                let c = p[i + k]
                guard c & 0xC0 == 0x80 else { return false }
                cp = cp << 6 | UInt32(c & 0x3F)
            }
            let minimum: UInt32 = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000
            guard cp >= minimum, cp <= 0x10FFFF, !(0xD800...0xDFFF).contains(cp) else { return false }
            i += len
        }
        return true
    }
}
