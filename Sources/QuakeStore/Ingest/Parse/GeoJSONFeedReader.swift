import QuakeFormat
/// A hand-written streaming reader for USGS GeoJSON FeatureCollection feeds, compact or
/// pretty-printed. No document tree is built: each feature is read with ``JSONCursor`` straight
/// into a ``RowBuilder``, in one pass over its bytes. A feature that runs past the bytes read so
/// far is read again once more have come; only a rejected feature is scanned for its end.
///
/// A reader can also read one piece of a file for a split parse (``init(piece:)``): a piece ends
/// where a cut was planned, just before a feature, and ``endedOnBoundary`` says whether it ended
/// there as the one-thread parse would (after a comma between features).
package final class GeoJSONFeedReader {
    private let input: FeedInput
    private var buf: [UInt8]
    private var pos = 0
    /// Bytes dropped from the front of `buf` so far, plus the piece's file offset.
    private var dropped = 0
    private var eof = false
    private var state = State.start
    /// The rows of the batch being read, in buffers kept from one batch to the next.
    private var builder: RowBuilder?
    private var featureIndex = 0
    private let seqBase: Int64
    private let onReject: (Reject) -> Void
    private var parser = GeoJSONFeatureParser(rules: FieldRules())
    /// Text rules and what they met (double-encoded text).
    package var rules: FieldRules {
        get { parser.rules }
        set { parser.rules = newValue }
    }
    private var sawFeatures = false
    /// The unit of integer times, settled on the file's first one.
    private var timeRule: TimeUnitRule
    private let onWarning: (String) -> Void
    /// A file-level error met while reading a feature (raised by the next `next`).
    private var pending: QuakeError?
    /// A piece of a split parse: its input ends at a planned cut, not at the end of the file.
    private let endsAtCut: Bool

    /// For a piece of a split parse: true when the input ended after a comma between features,
    /// where the next piece starts.
    package private(set) var endedOnBoundary = true
    /// Features read so far (rejected ones included).
    package var featuresRead: Int { featureIndex }
    /// The unit the file's integer times were read in, once settled.
    package var timeUnit: TimeUnit? { timeRule.unit }

    private enum State { case start, topKey, firstElement, element, afterElement, afterTop, done }

    package init(input: FeedInput, initial: [UInt8], seqBase: Int64, timeUnit: TimeUnit? = nil,
                 strict: Bool = false, onWarning: @escaping (String) -> Void = { _ in },
                 onReject: @escaping (Reject) -> Void) {
        self.input = input
        self.buf = initial
        self.seqBase = seqBase
        self.onReject = onReject
        self.onWarning = onWarning
        endsAtCut = false
        timeRule = TimeUnitRule(given: timeUnit, strict: strict, file: input.name)
    }

    /// A reader for bytes `offset...` of a file, read from `input`, which end at a planned cut.
    /// The first piece (`offset` 0) starts at the top of the collection; a later one starts at a
    /// feature inside the `features` array. Feature numbers count from 0 within the piece.
    package init(piece input: FeedInput, offset: Int, seqBase: Int64, timeUnit: TimeUnit?, strict: Bool,
                 rules: FieldRules, endsAtCut: Bool, builder: consuming RowBuilder? = nil,
                 onWarning: @escaping (String) -> Void, onReject: @escaping (Reject) -> Void) {
        self.builder = builder
        self.input = input
        buf = []
        dropped = offset
        self.seqBase = seqBase
        self.onReject = onReject
        self.onWarning = onWarning
        parser = GeoJSONFeatureParser(rules: rules)
        self.endsAtCut = endsAtCut
        timeRule = TimeUnitRule(given: timeUnit, strict: strict, file: input.name)
        if offset > 0 {
            state = .element
            sawFeatures = true
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

    private func malformed(_ what: String) -> QuakeError {
        .format("\(input.name): not a GeoJSON FeatureCollection: \(what)")
    }

    /// The row buffers, for the reader of the next piece (they are large: reused, not rebuilt).
    package func takeBuilder() -> RowBuilder? { builder.take() }

    /// Reads up to `maxRows` features; nil at the end of the collection.
    package func next(maxRows: Int) throws(QuakeError) -> RowBatch? {
        try RowBuilder.batch(&builder, maxRows: maxRows) { (rows) throws(QuakeError) in try fill(&rows) }
    }

    /// Where input that ended before the collection closed stopped: inside a feature (counted
    /// from 1), after the last whole one, or outside the features array.
    private var whereTruncated: String {
        let restIsSpace = buf[pos...].allSatisfy(JSONCursor.isSpace)
        switch state {
        case .firstElement, .element:
            if !restIsSpace { return "inside feature \(featureIndex + 1)" }
            return featureIndex == 0 ? "before the first feature" : "after feature \(featureIndex), before the features array closes"
        case .afterElement:
            return "after feature \(featureIndex), before the features array closes"
        case .afterTop:
            return "after the features array, before the collection closes"
        case .start, .topKey, .done:
            return "inside the collection"
        }
    }

    /// Reads features into `rows` until it is full or the collection ends.
    private func fill(_ rows: inout RowBuilder) throws(QuakeError) {
        while !rows.isFull {
            if case .done = state { break }
            // SAFETY: `raw` lives only for this closure: advance keeps offsets (pos), never the pointer, and
            // every cursor over it is bounded by raw.count.
            let advanced = buf.withUnsafeBytes { raw in
                Result { () throws(QuakeError) -> Bool in try advance(raw, &rows) }
            }
            let more = try advanced.get()
            if let pending { throw pending }
            guard more else { continue }
            if eof {
                if case .done = state { break }
                if endsAtCut {
                    // a piece ends well only after a comma between features, with nothing after it
                    endedOnBoundary = state == .element && buf[pos...].allSatisfy(JSONCursor.isSpace)
                    state = .done
                    break
                }
                throw .format("\(input.name): truncated GeoJSON (input ends \(whereTruncated))")
            }
            try refill()
        }
        if case .done = state, !sawFeatures { throw malformed("no \"features\" array") }
    }

    /// Reads what the bytes in `raw` hold, token by token, until `rows` is full, the collection
    /// ends, or more input is needed (then true).
    private func advance(_ raw: UnsafeRawBufferPointer, _ rows: inout RowBuilder) throws(QuakeError) -> Bool {
        while !rows.isFull {
            // SAFETY: the cursor is bounded by raw.count; pos <= raw.count (it moves only past a byte peek saw).
            var cursor = JSONCursor(raw, from: pos, to: raw.count, base: dropped)
            guard let byte = cursor.peek() else { return true }
            switch state {
            case .start:
                guard byte == UInt8(ascii: "{") else { throw malformed("expected '{'") }
                pos = cursor.i + 1
                state = .topKey
            case .topKey:
                if let stop = try advanceTopKey(raw, &cursor, byte) { return stop }
            case .afterTop:
                pos = cursor.i + 1
                if byte == UInt8(ascii: ",") {
                    state = .topKey
                } else if byte == UInt8(ascii: "}") {
                    state = .done
                    return false
                } else {
                    throw malformed("expected ',' or '}'")
                }
            case .afterElement:
                pos = cursor.i + 1
                if byte == UInt8(ascii: ",") {
                    state = .element
                } else if byte == UInt8(ascii: "]") {
                    state = .afterTop
                } else {
                    throw malformed("expected ',' between features")
                }
            case .firstElement where byte == UInt8(ascii: "]"):
                pos = cursor.i + 1
                state = .afterTop
            case .firstElement, .element:
                guard let end = readFeature(raw, from: cursor.i, into: &rows) else { return true }
                featureIndex += 1
                pos = end
                state = .afterElement
                if pending != nil { return false }
            case .done:
                return false
            }
        }
        return false
    }

    /// Reads a top-level key of the collection at `cursor` (whose first byte is `byte`) and steps
    /// into the `features` array or past the key's value. Returns what ``advance(_:_:)`` returns
    /// when it must stop (true: more input is needed), else nil.
    private func advanceTopKey(_ raw: UnsafeRawBufferPointer, _ cursor: inout JSONCursor,
                               _ byte: UInt8) throws(QuakeError) -> Bool? {
        if byte == UInt8(ascii: "}") {
            pos = cursor.i + 1
            state = .done
            return false
        }
        // SAFETY: valueEnd reads only below raw.count.
        guard let keyEnd = JSONCursor.valueEnd(raw, from: cursor.i, to: raw.count) else { return true }
        var key: [UInt8] = []
        do throws(JSONCursor.Malformed) { try cursor.string(into: &key) } catch { throw malformed(error.reason) }
        guard cursor.i == keyEnd, let colon = cursor.peek() else { return true }
        guard colon == UInt8(ascii: ":") else { throw malformed("expected ':'") }
        cursor.i += 1
        guard let value = cursor.peek() else { return true }
        if key.elementsEqual("features".utf8) {
            guard value == UInt8(ascii: "[") else { throw malformed("\"features\" is not an array") }
            cursor.i += 1
            sawFeatures = true
            state = .firstElement
        } else {
            // SAFETY: valueEnd reads only below raw.count.
            guard let valueEnd = JSONCursor.valueEnd(raw, from: cursor.i, to: raw.count) else { return true }
            cursor.i = valueEnd
            state = .afterTop
        }
        pos = cursor.i
        return nil
    }

    /// Reads the feature at `from` into `rows` (or rejects it); returns where it ends, or nil when
    /// it runs past the bytes in `raw`.
    private func readFeature(_ raw: UnsafeRawBufferPointer, from: Int, into rows: inout RowBuilder) -> Int? {
        let garbled = parser.rules.garbled
        let repaired = parser.rules.repaired
        // SAFETY: the cursor is bounded by raw.count; rows copies every field it keeps.
        var cursor = JSONCursor(raw, from: from, to: raw.count, base: dropped)
        let reason: String
        do {
            let mask = try parser.feature(&cursor, &rows)
            if parser.integerTimes != 0 { try convertTimes(&rows) }
            try rows.validateCurrentRow()
            rows.endRow(present: mask, seq: seqBase + Int64(featureIndex) + 1)
            return cursor.i
        } catch let error as FieldError {
            reason = error.reason
        } catch let error as JSONCursor.Malformed {
            reason = "malformed JSON: \(error.reason)"
        } catch {
            reason = "\(error)"
        }
        rows.abandonRow()
        // SAFETY: valueEnd reads only below raw.count.
        guard let end = JSONCursor.valueEnd(raw, from: from, to: raw.count) else {
            // the feature is not all here: it is read again, whole, once more bytes have come
            parser.rules.rollBack(garbled: garbled, repaired: repaired)
            return nil
        }
        if pending == nil {   // else the file fails whole
            onReject(Reject(file: input.name, line: featureIndex, isFeature: true, reason: reason))
        }
        return end
    }

    /// Integer `time` and `updated` to milliseconds, by the file's unit (settled here on the
    /// first integer time).
    private func convertTimes(_ rows: inout RowBuilder) throws {
        let integerTimes = parser.integerTimes
        let time = rows.currentInt(.time)
        let updated: Int64? = integerTimes & Column.updated.bit != 0 ? rows.currentInt(.updated) : nil
        if integerTimes & Column.time.bit != 0 {
            do throws(QuakeError) {
                if let warning = try timeRule.decide(time: time, updated: updated, names: parser.rules.names) {
                    onWarning(warning)
                }
            } catch {
                pending = error
                throw FieldError(reason: "\(error)")
            }
        }
        for column in [Column.time, .updated] where integerTimes & column.bit != 0 {
            rows.setInt(column, try timeRule.milliseconds(rows.currentInt(column), column, time: time,
                                                          updated: updated, names: parser.rules.names))
        }
    }
}
