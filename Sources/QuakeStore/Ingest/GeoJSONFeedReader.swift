import QuakeFormat
/// A hand-written streaming reader for USGS GeoJSON FeatureCollection feeds, compact or
/// pretty-printed. Each feature is cut out of the stream by bracket matching and read with
/// ``JSONCursor``; no document tree is built.
package final class GeoJSONFeedReader {
    private let input: FeedInput
    private var buf: [UInt8]
    private var pos = 0
    private var eof = false
    private var state = State.start
    /// Text bytes per column of the last batch (and an eighth more), to size the next one.
    private var lastTextBytes: [Int]?
    private var featureIndex = 0
    private let seqBase: Int64
    private let onReject: (Reject) -> Void
    private var scratch: [UInt8] = []
    /// Text rules and what they met (double-encoded text).
    package var rules = FieldRules()
    private var sawFeatures = false
    /// The unit of integer times, settled on the file's first one.
    private var timeRule: TimeUnitRule
    private let onWarning: (String) -> Void
    /// A file-level error met while reading a feature (raised by the next `next`).
    private var pending: IngestError?
    /// Which timestamp fields of the current feature held integers.
    private var integerTimes: UInt64 = 0

    private enum State { case start, topKey, features(first: Bool), afterTop, done }

    private static let keys: [([UInt8], Column)] = (Column.geoJSONProperties + Column.extraGeoJSONProperties).map { (Array($0.name.utf8), $0) }

    package init(input: FeedInput, initial: [UInt8], seqBase: Int64, timeUnit: TimeUnit? = nil, strict: Bool = false,
         onWarning: @escaping (String) -> Void = { _ in }, onReject: @escaping (Reject) -> Void) {
        self.input = input
        self.buf = initial
        self.seqBase = seqBase
        self.onReject = onReject
        self.onWarning = onWarning
        timeRule = TimeUnitRule(given: timeUnit, strict: strict, file: input.name)
    }

    private func refill() throws(IngestError) {
        if pos > 0 { buf.removeFirst(pos); pos = 0 }
        if let chunk = try input.next() { buf.append(contentsOf: chunk) } else { eof = true }
    }

    private func malformed(_ what: String) -> IngestError {
        .format("\(input.name): not a GeoJSON FeatureCollection: \(what)")
    }

    /// Reads up to `maxRows` features; nil at the end of the collection.
    package func next(maxRows: Int) throws(IngestError) -> RowBatch? {
        var batch = RowBatch()
        batch.reserveCapacity(rows: min(maxRows, 1 << 20), textBytes: lastTextBytes)
        defer { if batch.count > 0 { lastTextBytes = batch.text.map { $0.bytes.count + $0.bytes.count / 8 } } }
        while batch.count < maxRows {
            if case .done = state { break }
            if try !step(&batch) {
                if eof {
                    if case .done = state { break }
                    throw .format("\(input.name): truncated GeoJSON (input ends inside \(featureIndex > 0 ? "feature \(featureIndex)" : "the collection"))")
                }
                try refill()
            }
            if let pending { throw pending }
        }
        if case .done = state, !sawFeatures { throw malformed("no \"features\" array") }
        return batch.count == 0 ? nil : batch
    }

    /// Advances the state machine by one token; false when more input is needed.
    private func step(_ batch: inout RowBatch) throws(IngestError) -> Bool {
        let r = buf.withUnsafeBytes { raw in Result { () throws(IngestError) -> Bool in try step(raw, &batch) } }
        return try r.get()
    }

    private func step(_ raw: UnsafeRawBufferPointer, _ batch: inout RowBatch) throws(IngestError) -> Bool {
        do {
            var c = JSONCursor(raw, from: pos, to: raw.count)
            guard let b = c.peek() else { return false }
            switch state {
            case .start:
                guard b == UInt8(ascii: "{") else { throw malformed("expected '{'") }
                c.i += 1
                pos = c.i
                state = .topKey
            case .topKey:
                if b == UInt8(ascii: "}") { pos = c.i + 1; state = .done; return true }
                guard let keyEnd = JSONCursor.valueEnd(raw, from: c.i, to: raw.count) else { return false }
                var key: [UInt8] = []
                do throws(JSONCursor.Malformed) { try c.string(into: &key) } catch { throw malformed(error.reason) }
                guard c.i == keyEnd, let colon = c.peek() else { return false }
                guard colon == UInt8(ascii: ":") else { throw malformed("expected ':'") }
                c.i += 1
                guard let v = c.peek() else { return false }
                if key == Array("features".utf8) {
                    guard v == UInt8(ascii: "[") else { throw malformed("\"features\" is not an array") }
                    c.i += 1
                    sawFeatures = true
                    state = .features(first: true)
                } else {
                    guard let e = JSONCursor.valueEnd(raw, from: c.i, to: raw.count) else { return false }
                    c.i = e
                    state = .afterTop
                }
                pos = c.i
            case .afterTop:
                c.i += 1
                if b == UInt8(ascii: ",") { state = .topKey } else if b == UInt8(ascii: "}") { state = .done } else {
                    throw malformed("expected ',' or '}'")
                }
                pos = c.i
            case .features(let first):
                if b == UInt8(ascii: "]") { pos = c.i + 1; state = .afterTop; return true }
                if !first {
                    guard b == UInt8(ascii: ",") else { throw malformed("expected ',' between features") }
                    c.i += 1
                    guard c.peek() != nil else { return false }
                }
                guard let e = JSONCursor.valueEnd(raw, from: c.i, to: raw.count) else { return false }
                readFeature(raw, from: c.i, to: e, into: &batch)
                featureIndex += 1
                pos = e
                state = .features(first: false)
            case .done:
                return true
            }
            return true
        }
    }

    private func readFeature(_ raw: UnsafeRawBufferPointer, from: Int, to: Int, into batch: inout RowBatch) {
        batch.beginRow()
        do {
            integerTimes = 0
            let mask = try parseFeature(JSONCursor(raw, from: from, to: to), &batch)
            if integerTimes != 0 { try convertTimes(&batch) }
            try batch.validateCurrentRow()
            batch.endRow(present: mask, seq: seqBase + Int64(featureIndex) + 1)
        } catch let e as FieldError {
            batch.abandonRow()
            if pending != nil { return }  // the file fails whole
            onReject(Reject(file: input.name, line: featureIndex, isFeature: true, reason: e.reason))
        } catch let e as JSONCursor.Malformed {
            batch.abandonRow()
            onReject(Reject(file: input.name, line: featureIndex, isFeature: true, reason: "malformed JSON: \(e.reason)"))
        } catch {
            batch.abandonRow()
            onReject(Reject(file: input.name, line: featureIndex, isFeature: true, reason: "\(error)"))
        }
    }

    private func parseFeature(_ cursor: JSONCursor, _ batch: inout RowBatch) throws -> UInt64 {
        var c = cursor
        var mask: UInt64 = 0
        try c.expect(UInt8(ascii: "{"))
        if c.peek() == UInt8(ascii: "}") { throw FieldError(reason: "empty feature") }
        var key: [UInt8] = []
        repeat {
            try c.string(into: &key)
            try c.expect(UInt8(ascii: ":"))
            if key.elementsEqual("properties".utf8) {
                if try c.literal() == nil { mask |= try parseProperties(&c, &batch) }
            } else if key.elementsEqual("geometry".utf8) {
                if try c.literal() == nil { mask |= try parseGeometry(&c, &batch) }
            } else if key.elementsEqual("id".utf8) {
                if try c.literal() == nil {
                    try c.string(into: &scratch)
                    try scratch.withUnsafeBytes { try batch.parseField(.id, $0, &rules) }
                    mask |= Column.id.bit
                }
            } else {
                try c.skipValue()
            }
        } while try c.more(closer: UInt8(ascii: "}"))
        return mask
    }

    private func parseGeometry(_ c: inout JSONCursor, _ batch: inout RowBatch) throws -> UInt64 {
        var mask: UInt64 = 0
        var key: [UInt8] = []
        try c.expect(UInt8(ascii: "{"))
        if c.peek() == UInt8(ascii: "}") { c.i += 1; return 0 }
        repeat {
            try c.string(into: &key)
            try c.expect(UInt8(ascii: ":"))
            if key.elementsEqual("coordinates".utf8) {
                try c.expect(UInt8(ascii: "["))
                let cols: [Column] = [.longitude, .latitude, .depth]
                var k = 0
                if c.peek() != UInt8(ascii: "]") {
                    repeat {
                        if k < 3 {
                            if try c.literal() == nil { try batch.parseField(cols[k], c.number(), &rules) }
                            mask |= cols[k].bit
                        } else { try c.skipValue() }
                        k += 1
                    } while try c.more(closer: UInt8(ascii: "]"))
                } else { c.i += 1 }
            } else {
                try c.skipValue()
            }
        } while try c.more(closer: UInt8(ascii: "}"))
        return mask
    }

    /// Integer `time` and `updated` to milliseconds, by the file's unit (settled here on the
    /// first integer time).
    private func convertTimes(_ batch: inout RowBatch) throws {
        let row = batch.count
        let t = batch.ints[Column.time.rawValue][row]
        let u: Int64? = integerTimes & Column.updated.bit != 0 ? batch.ints[Column.updated.rawValue][row] : nil
        if integerTimes & Column.time.bit != 0 {
            do throws(IngestError) {
                if let w = try timeRule.decide(time: t, updated: u) { onWarning(w) }
            } catch {
                pending = error
                throw FieldError(reason: "\(error)")
            }
        }
        for c in [Column.time, .updated] where integerTimes & c.bit != 0 {
            batch.setInt(c, try timeRule.milliseconds(batch.ints[c.rawValue][row], c, time: t, updated: u))
        }
    }

    private func parseProperties(_ c: inout JSONCursor, _ batch: inout RowBatch) throws -> UInt64 {
        var mask: UInt64 = 0
        var key: [UInt8] = []
        var hint = 0
        try c.expect(UInt8(ascii: "{"))
        if c.peek() == UInt8(ascii: "}") { c.i += 1; return 0 }
        let keys = GeoJSONFeedReader.keys
        repeat {
            try c.string(into: &key)
            try c.expect(UInt8(ascii: ":"))
            var column: Column?
            for k in 0..<keys.count {
                let j = (hint + k) % keys.count
                if keys[j].0 == key { column = keys[j].1; hint = j + 1; break }
            }
            guard let col = column else { try c.skipValue(); continue }
            mask |= col.bit
            if let lit = try c.literal() {
                if lit != UInt8(ascii: "n") && col.kind == .decimal {   // booleans as 0/1
                    batch.setInt(col, ScaledDecimal.fromInteger(lit == UInt8(ascii: "t") ? 1 : 0))
                }
                continue
            }
            let b = c.peek()
            if b == UInt8(ascii: "\"") {
                try c.string(into: &scratch)
                try scratch.withUnsafeBytes { p throws in
                    if col.kind == .timestamp, let v = GeoJSONFeedReader.integer(p) {
                        batch.setInt(col, v)
                        integerTimes |= col.bit
                    } else {
                        try batch.parseField(col, p, &rules)
                    }
                }
            } else if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
                try c.skipValue()
            } else {
                let num = c.number()
                if col.kind == .timestamp {
                    guard let v = GeoJSONFeedReader.integer(num) else {
                        throw FieldError(reason: "\(col): not epoch milliseconds: '\(RowBatch.show(num))'")
                    }
                    batch.setInt(col, v)
                    integerTimes |= col.bit
                } else if col.kind == .decimal {
                    try batch.parseField(col, num, &rules)
                } else {
                    try batch.parseField(col, num, &rules)
                }
            }
        } while try c.more(closer: UInt8(ascii: "}"))
        return mask
    }

    private static func integer(_ p: UnsafeRawBufferPointer) -> Int64? {
        guard !p.isEmpty else { return nil }
        var i = 0
        var neg = false
        if p[0] == UInt8(ascii: "-") { neg = true; i = 1 }
        guard i < p.count else { return nil }
        var v: Int64 = 0
        while i < p.count {
            let d = Int64(p[i]) - 48
            guard d >= 0 && d <= 9, v < Int64.max / 10 - 10 else { return nil }
            v = v * 10 + d
            i += 1
        }
        return neg ? -v : v
    }
}
