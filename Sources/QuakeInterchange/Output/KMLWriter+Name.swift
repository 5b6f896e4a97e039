import QuakeFormat

/// An event's name as USGS titles it (`getEventTitle` in usgs/earthquake-event-ws):
/// `M {mag to one decimal} - {place}`, `M ?` without a magnitude, and the event type after the
/// magnitude when it is not an earthquake (`M 1.6 Quarry Blast - 5 km SW of Town`). Without a
/// place, the name stops after the magnitude (and type).
extension KMLWriter {
    /// Appends row `row`'s name, unescaped.
    package static func name(_ batch: RowBatch, _ row: Int, into out: inout [UInt8]) {
        out.append(contentsOf: "M ".utf8)
        let mag = batch.ints[Column.mag.rawValue][row]
        if mag == RowBatch.null { out.append(UInt8(ascii: "?")) } else { oneDecimal(mag, into: &out) }
        typeTitle(text(batch, .type, row), into: &out)
        let place = text(batch, .place, row)
        if !place.isEmpty {
            out.append(contentsOf: " - ".utf8)
            out.append(contentsOf: place)
        }
    }

    /// A stored decimal rounded to one decimal place, half away from zero, as PHP's
    /// `number_format($m, 1)` gives it: 4.45 is 4.5, 5 is 5.0, -0.04 is 0.0. Exact: half away
    /// from zero depends only on the first digit dropped.
    package static func oneDecimal(_ e: Int64, into out: inout [UInt8]) {
        let scale = Int(e & 31)
        let mantissa = e >> 6
        var tenths = mantissa.magnitude
        if scale == 0 {
            tenths *= 10
        } else if scale >= 2 {
            var drop = scale - 2
            while drop > 0 && tenths > 0 {
                tenths /= 10
                drop -= 1
            }
            tenths = (tenths + 5) / 10
        }
        if mantissa < 0 && tenths != 0 { out.append(UInt8(ascii: "-")) }
        let whole = tenths / 10
        if whole == 0 {
            out.append(UInt8(ascii: "0"))
        } else {
            var div: UInt64 = 1
            while div <= whole / 10 { div *= 10 }
            var rest = whole
            while div > 0 {
                out.append(UInt8(48 + rest / div))
                rest %= div
                div /= 10
            }
        }
        out.append(UInt8(ascii: "."))
        out.append(UInt8(48 + tenths % 10))
    }

    /// Appends ` Type` for an event that is not an earthquake: USGS's names for its short forms,
    /// else the type with each word capitalized (PHP's `ucwords`). Nothing for an earthquake or
    /// an empty type.
    package static func typeTitle(_ type: ArraySlice<UInt8>, into out: inout [UInt8]) {
        guard !type.isEmpty else { return }
        for (key, title) in typeTitles where equalsIgnoringCase(type, key) {
            if let title {
                out.append(UInt8(ascii: " "))
                out.append(contentsOf: title.utf8)
            }
            return
        }
        out.append(UInt8(ascii: " "))
        var wordStart = true
        for u in type {
            let lower = u >= UInt8(ascii: "a") && u <= UInt8(ascii: "z")
            out.append(wordStart && lower ? u - 32 : u)
            wordStart = u == 32 || (u >= 9 && u <= 13)
        }
    }

    /// USGS's names for the types it does not just capitalize; nil: no name (an earthquake).
    private static let typeTitles: [(key: [UInt8], title: String?)] = [
        (Array("earthquake".utf8), nil), (Array("quarry".utf8), "Quarry Blast"),
        (Array("nuke".utf8), "Nuclear Explosion"), (Array("rockfall".utf8), "Rockslide"),
        (Array("rockburst".utf8), "Rockslide"), (Array("sonicboom".utf8), "Sonic Boom"),
    ]

    /// Whether `s` is `lowercase` in any ASCII case.
    @inline(__always)
    private static func equalsIgnoringCase(_ s: ArraySlice<UInt8>, _ lowercase: [UInt8]) -> Bool {
        guard s.count == lowercase.count else { return false }
        for (a, b) in zip(s, lowercase) where a != b && !(a >= 65 && a <= 90 && a + 32 == b) { return false }
        return true
    }
}
