import QuakeFormat

/// Where a feed reader puts the fields of the row it is building: a ``RowBatch`` (GeoJSON) or
/// a ``RowBuilder`` (CSV). Parsing and checking a field is written once, for both.
package protocol FieldSink: ~Copyable {
    mutating func setInt(_ c: Column, _ v: Int64)
    mutating func setText(_ c: Column, _ bytes: UnsafeRawBufferPointer)
    /// The number the row being built holds in column `c` (null when unset).
    func currentInt(_ c: Column) -> Int64
    /// True when the row being built has no text in column `c`.
    func currentTextIsEmpty(_ c: Column) -> Bool
}

extension RowBatch: FieldSink {
    package func currentInt(_ c: Column) -> Int64 { ints[c.rawValue][count] }
    package func currentTextIsEmpty(_ c: Column) -> Bool { text[c.rawValue].isNull(count) }
}

extension RowBuilder: FieldSink {}

extension FieldSink where Self: ~Copyable {
    /// Parses feed text for column `c` into the row being built. An empty field is null. Text is
    /// stored in Unicode's composed form (NFC); `rules` says how to read times and whether to
    /// repair double-encoded text, and counts what it met.
    package mutating func parseField(_ c: Column, _ p: UnsafeRawBufferPointer,
                                     _ rules: inout FieldRules) throws(FieldError) {
        // SAFETY: `p` is borrowed for this call: the parsers read below p.count and setText copies the bytes.
        if p.isEmpty { return }
        switch c.kind {
        case .timestamp:
            if let format = rules.timeFormat, let time = format.parse(p) {
                setInt(c, time)
                return
            }
            do {
                setInt(c, try Timestamp.parse(p))
            } catch {
                if let format = rules.timeFormat {
                    throw FieldError(reason: "\(c): matches neither --time-format '\(format.pattern)' nor ISO 8601: "
                                         + "'\(RowBatch.show(p))'")
                }
                throw FieldError(reason: "\(c): not an ISO-8601 time: '\(RowBatch.show(p))'")
            }
        case .decimal:
            do { setInt(c, try ScaledDecimal.parse(p)) } catch {
                throw FieldError(reason: "\(c): not a number: '\(RowBatch.show(p))'")
            }
        case .category, .text, .place:
            guard RowBatch.validUTF8(p) else { throw FieldError(reason: "\(c): invalid UTF-8") }
            // SAFETY: `$0` is used only inside the closure; setText copies the bytes it keeps.
            if let text = rules.normalized(p) { text.withUnsafeBytes { setText(c, $0) } } else { setText(c, p) }
        }
    }

    /// Checks the row being built: required fields, coordinate ranges.
    package func validateCurrentRow() throws(FieldError) {
        let time = currentInt(.time)
        if time == RowBatch.null { throw FieldError(reason: "time: missing") }
        if !Timestamp.storable.contains(time) { throw FieldError(reason: "time: \(time) is outside years 0000-9999") }
        let updated = currentInt(.updated)
        if updated != RowBatch.null, !Timestamp.storable.contains(updated) {
            throw FieldError(reason: "updated: \(updated) is outside years 0000-9999")
        }
        if currentTextIsEmpty(.id) { throw FieldError(reason: "id: missing") }
        let lat = ScaledDecimal.double(currentInt(.latitude))
        if lat.isNaN { throw FieldError(reason: "latitude: missing") }
        if !(lat >= -90 && lat <= 90) { throw FieldError(reason: "latitude: \(lat) out of range [-90, 90]") }
        let lon = ScaledDecimal.double(currentInt(.longitude))
        if lon.isNaN { throw FieldError(reason: "longitude: missing") }
        if !(lon >= -180 && lon <= 180) { throw FieldError(reason: "longitude: \(lon) out of range [-180, 180]") }
    }

}

extension RowBatch {
    package static func show(_ p: UnsafeRawBufferPointer) -> String {
        // SAFETY: prefix(40) reads at most p.count bytes; String(decoding:) copies them.
        String(decoding: p.prefix(40), as: UTF8.self)
    }

    /// UTF-8 validity, with an ASCII fast path (see ``UTF8Validation``).
    @inline(__always)
    package static func validUTF8(_ p: UnsafeRawBufferPointer) -> Bool { UTF8Validation.isValid(p) }
}
