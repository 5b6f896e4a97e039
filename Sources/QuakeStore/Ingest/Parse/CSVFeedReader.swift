import QuakeFormat
/// A hand-written streaming reader for USGS summary CSV (RFC 4180).
///
/// Columns are found by header name, so the 22-column, the older 15-column and reduced layouts
/// all load; unknown columns are ignored with one warning. Quoted fields may hold commas, quotes
/// and newlines. LF or CRLF, with or without a final newline.
package final class CSVFeedReader {
    private let input: FeedInput
    private var buf: [UInt8]
    private var pos = 0
    /// Bytes dropped from the front of `buf` so far (`buf[0]` is file offset `dropped`).
    private var dropped = 0
    private var eof = false
    private var line = 1
    private var mapping: [Column?] = []
    private var present: UInt64 = 0
    private let seqBase: Int64
    private var rowNumber: Int64 = 0
    private let onReject: (Reject) -> Void
    private var fields: [Field] = []
    /// The rows of the batch being read, in buffers kept from one batch to the next.
    private var builder: RowBuilder?
    private var scratch: [UInt8] = []
    /// Time format and text rules, and what they met (double-encoded text).
    package var rules = FieldRules()
    /// Messages about the file as a whole (ignored columns).
    package private(set) var warnings: [String] = []

    private struct Field {
        package var start: Int
        package var end: Int
        package var escaped: Bool
    }

    package static let unterminated = "unterminated quoted field"

    private enum Scan {
        case record(next: Int, newlines: Int, malformed: String?)
        case incomplete
        case end
    }

    package init(input: FeedInput, initial: [UInt8], seqBase: Int64,
                 onReject: @escaping (Reject) -> Void) throws(QuakeError) {
        self.input = input
        self.buf = initial
        self.seqBase = seqBase
        self.onReject = onReject
        if buf.starts(with: [0xEF, 0xBB, 0xBF]) { pos = 3 }
        try readHeader()
    }

    /// The columns the header named, for the workers of a split parse.
    package struct Header: Sendable {
        package var mapping: [Column?]
        package var present: UInt64
        package var rules: FieldRules
    }

    package var header: Header {
        Header(mapping: mapping, present: present,
               rules: FieldRules(timeFormat: rules.timeFormat, fixText: rules.fixText, names: rules.names))
    }

    /// Bytes of the file the header took (the split parse starts after them), when the header
    /// holds no quote; nil otherwise.
    package var headerBytes: Int? { headerEnd }
    private var headerEnd: Int?

    /// A reader for a piece of a file that starts at a record boundary after the header. Line
    /// numbers count from 1 within the piece; the loader shifts them once the pieces before it
    /// are known.
    package init(input: FeedInput, header: Header, seqBase: Int64, builder: consuming RowBuilder? = nil,
                 onReject: @escaping (Reject) -> Void) {
        self.builder = builder
        self.input = input
        self.buf = []
        self.seqBase = seqBase
        self.onReject = onReject
        self.mapping = header.mapping
        self.present = header.present
        self.rules = header.rules
    }

    /// True when the last record read ended with a newline, outside any quoted field: a piece
    /// of a split parse that ends this way ended where a one-thread parse has a record boundary.
    package private(set) var endedOnRecordBoundary = true

    /// True when this reader's input ends where the file does (a whole file, or the last piece of a
    /// split parse): a quoted field still open there is a cut-short file, an error.
    package var atFileEnd = true

    /// True when rows were read and the last of them had no newline: a USGS CSV always ends with
    /// one, so the file may have been cut short.
    package var endedWithoutNewline: Bool { rowNumber > 0 && !endedOnRecordBoundary }

    /// Newlines read so far.
    package var linesRead: Int { line - 1 }

    private func readHeader() throws(QuakeError) {
        var fields: [Field] = []
        while true {
            switch scan(into: &fields) {
            case .incomplete:
                try refill()
                continue
            case .end:
                throw .format("\(input.name): empty file (no CSV header)")
            case .record(let next, let newlines, _):
                var unknown: [String] = []
                var seen = ColumnSet()
                for (k, field) in fields.enumerated() {
                    let name = String(decoding: buf[field.start..<field.end], as: UTF8.self).trimmingSpaces
                    if let column = Column(name: name), !seen.contains(column) {
                        seen.insert(column)
                        mapping.append(column)
                        present |= column.bit
                    } else {
                        mapping.append(nil)
                        unknown.append(name.isEmpty ? "(unnamed column \(k + 1))" : "'\(name)'")
                    }
                }
                let missing = Column.required.filter { !seen.contains($0) }
                if !missing.isEmpty {
                    let names = missing.map(\.name).joined(separator: ", ")
                    throw .format("\(input.name): not a USGS CSV feed: "
                        + "missing required column\(missing.count > 1 ? "s" : "") \(names)")
                }
                if !unknown.isEmpty {
                    let columns = unknown.joined(separator: ", ")
                    warnings.append("\(input.name): ignoring unknown column\(unknown.count > 1 ? "s" : "") \(columns)")
                }
                if !buf[pos..<next].contains(UInt8(ascii: "\"")) { headerEnd = dropped + next }
                pos = next
                line += newlines
                return
            }
        }
    }

    private func refill() throws(QuakeError) {
        if pos > 0 {
            buf.removeFirst(pos)
            dropped += pos
            pos = 0
        }
        if let chunk = try input.next() { buf.append(contentsOf: chunk) } else { eof = true }
    }

    /// The row buffers, for the reader of the next piece (they are large: reused, not rebuilt).
    package func takeBuilder() -> RowBuilder? { builder.take() }

    /// Reads up to `maxRows` rows; nil at the end of the file.
    package func next(maxRows: Int) throws(QuakeError) -> RowBatch? {
        try RowBuilder.batch(&builder, maxRows: maxRows) { (rows) throws(QuakeError) in try fill(&rows) }
    }

    /// Reads rows into `rows` until it is full or the file ends.
    private func fill(_ rows: inout RowBuilder) throws(QuakeError) {
        // the per-row state lives in locals for the whole batch, not in the class's properties:
        // each property access in the row loop would be a dynamic exclusivity check and a retain
        var fields = self.fields
        var rules = self.rules
        var scratch = self.scratch
        self.fields = []
        self.scratch = []
        defer {
            self.fields = fields
            self.rules = rules
            self.scratch = scratch
        }
        let mapping = self.mapping
        let present = self.present
        let seqBase = self.seqBase
        while !rows.isFull {
            switch scan(into: &fields) {
            case .incomplete:
                try refill()
            case .end:
                return
            case .record(let next, let newlines, let malformed):
                let recordLine = line
                line += newlines
                endedOnRecordBoundary = malformed != CSVFeedReader.unterminated
                    && next > 0 && buf[next - 1] == UInt8(ascii: "\n")
                defer { pos = next }
                if fields.count == 1 && fields[0].start == fields[0].end { continue }   // blank line
                rowNumber += 1
                if let reason = malformed {
                    if atFileEnd && reason == CSVFeedReader.unterminated {
                        throw QuakeError(.format, path: input.name, position: .line(recordLine),
                                         detail: "the file ends inside a quoted field: it was cut short")
                    }
                    onReject(Reject(file: input.name, line: recordLine, isFeature: false, reason: reason))
                    continue
                }
                guard fields.count == mapping.count else {
                    onReject(Reject(file: input.name, line: recordLine, isFeature: false,
                                    reason: "expected \(mapping.count) fields, found \(fields.count)"))
                    continue
                }
                do throws(FieldError) {
                    try fillRow(&rows, fields, mapping, &rules, &scratch)
                    try rows.validateCurrentRow()
                    rows.endRow(present: present, seq: seqBase + rowNumber)
                } catch {
                    rows.abandonRow()
                    onReject(Reject(file: input.name, line: recordLine, isFeature: false, reason: error.reason))
                }
            }
        }
    }

    private func fillRow(_ batch: inout RowBuilder, _ fields: [Field], _ mapping: [Column?],
                         _ rules: inout FieldRules, _ scratch: inout [UInt8]) throws(FieldError) {
        // SAFETY: scan() built `fields` over this same buf (unchanged since), so start <= end <= bytes.count, and
        // an escaped field's doubled quotes both lie before its end; `bytes` does not escape the closure.
        let result = buf.withUnsafeBytes { bytes in
            Result { () throws(FieldError) in
                for k in 0..<fields.count {
                    guard let column = mapping[k] else { continue }
                    let field = fields[k]
                    assert(field.start <= field.end && field.end <= bytes.count, "field \(k) outside the buffer")
                    if field.escaped {
                        scratch.removeAll(keepingCapacity: true)
                        var at = field.start
                        while at < field.end {
                            let byte = bytes[at]
                            scratch.append(byte)
                            at += (byte == UInt8(ascii: "\"")) ? 2 : 1
                        }
                        // SAFETY: `unquoted` is used only inside the closure; parseField copies the bytes it keeps.
                        let parsed = scratch.withUnsafeBytes { unquoted in
                            Result { () throws(FieldError) in try batch.parseField(column, unquoted, &rules) }
                        }
                        try parsed.get()
                    } else {
                        try batch.parseField(column, UnsafeRawBufferPointer(rebasing: bytes[field.start..<field.end]),
                                             &rules)
                    }
                }
            }
        }
        try result.get()
    }

    /// Splits the record at `pos` into `fields` (a local of the caller's: no dynamic exclusivity
    /// check per append), keeping the array's capacity.
    // Long by design: the hot loop of the CSV field scan; see Benchmarks/RESULTS.md (load of the 10 M CSV).
    private func scan(into fields: inout [Field]) -> Scan {
        fields.removeAll(keepingCapacity: true)
        let length = buf.count
        let atEOF = eof
        if pos >= length { return atEOF ? .end : .incomplete }
        let pos = self.pos
        // SAFETY: every bytes[k] below follows a check that k < length = bytes.count (the loops and the `&&`
        // conditions).
        return buf.withUnsafeBufferPointer { bytes -> Scan in
            assert(length == bytes.count, "the scanned buffer changed size")
            var cursor = pos
            var newlines = 0
            var malformed: String?
            while true {
                if cursor < length && bytes[cursor] == UInt8(ascii: "\"") {
                    cursor += 1
                    let start = cursor
                    var escaped = false
                    while true {
                        if cursor >= length {
                            if !atEOF { return .incomplete }
                            return .record(next: length, newlines: newlines, malformed: CSVFeedReader.unterminated)
                        }
                        let byte = bytes[cursor]
                        if byte == UInt8(ascii: "\"") {
                            if cursor + 1 >= length && !atEOF { return .incomplete }
                            if cursor + 1 < length && bytes[cursor + 1] == UInt8(ascii: "\"") {
                                escaped = true
                                cursor += 2
                                continue
                            }
                            break
                        }
                        if byte == UInt8(ascii: "\n") { newlines += 1 }
                        cursor += 1
                    }
                    fields.append(Field(start: start, end: cursor, escaped: escaped))
                    cursor += 1
                    if cursor < length && bytes[cursor] == UInt8(ascii: ",") {
                        cursor += 1
                        continue
                    }
                    if cursor < length && bytes[cursor] == UInt8(ascii: "\r")
                        && cursor + 1 < length && bytes[cursor + 1] == UInt8(ascii: "\n") {
                        cursor += 1
                    }
                    if cursor >= length {
                        if !atEOF { return .incomplete }
                        return .record(next: length, newlines: newlines, malformed: malformed)
                    }
                    if bytes[cursor] == UInt8(ascii: "\n") {
                        return .record(next: cursor + 1, newlines: newlines + 1, malformed: malformed)
                    }
                    malformed = "unexpected text after a closing quote"
                    while cursor < length && bytes[cursor] != UInt8(ascii: ",") && bytes[cursor] != UInt8(ascii: "\n") {
                        cursor += 1
                    }
                    if cursor < length && bytes[cursor] == UInt8(ascii: ",") {
                        cursor += 1
                        continue
                    }
                    if cursor >= length && !atEOF { return .incomplete }
                    return .record(next: min(cursor + 1, length), newlines: newlines + (cursor < length ? 1 : 0),
                                   malformed: malformed)
                } else {
                    let start = cursor
                    // eight bytes a step while eight remain, then one at a time
                    var found = false
                    if let base = bytes.baseAddress {
                        while cursor + 8 <= length {
                            // SAFETY: cursor + 8 <= length, so the eight bytes lie inside the buffer.
                            let word = UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self)
                            let matches = CSVFeedReader.commaOrNewline(word)
                            if matches != 0 {
                                cursor += matches.trailingZeroBitCount >> 3
                                found = true
                                break
                            }
                            cursor += 8
                        }
                    }
                    while !found && cursor < length {
                        let byte = bytes[cursor]
                        if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\n") { break }
                        cursor += 1
                    }
                    if cursor >= length && !atEOF { return .incomplete }
                    var end = cursor
                    if end > start && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                    fields.append(Field(start: start, end: end, escaped: false))
                    if cursor < length && bytes[cursor] == UInt8(ascii: ",") {
                        cursor += 1
                        continue
                    }
                    if cursor >= length { return .record(next: length, newlines: newlines, malformed: malformed) }
                    return .record(next: cursor + 1, newlines: newlines + 1, malformed: malformed)
                }
            }
        }
    }
}

extension CSVFeedReader {
    /// A word whose lowest set bit is the high bit of the first byte of `w` (in memory order,
    /// little-endian) that is a comma or a newline; 0 when none is. Bits above the first match
    /// may be set falsely (a borrow), never below it.
    @inline(__always)
    static func commaOrNewline(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let comma = w ^ (ones &* UInt64(UInt8(ascii: ",")))
        let newline = w ^ (ones &* UInt64(UInt8(ascii: "\n")))
        return ((comma &- ones) & ~comma & highs) | ((newline &- ones) & ~newline & highs)
    }
}

extension String {
    package var trimmingSpaces: String {
        var trimmed = Substring(self)
        while let first = trimmed.first, first == " " || first == "\r" || first == "\u{FEFF}" { trimmed.removeFirst() }
        while let last = trimmed.last, last == " " || last == "\r" { trimmed.removeLast() }
        return String(trimmed)
    }
}
