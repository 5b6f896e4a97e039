/// USGS's `title` of an event, made from its magnitude, type and place. A store keeps no title
/// that this gives (a GeoJSON feed's titles all follow from those fields), and makes it again
/// when the event is read: a store synced from GeoJSON is a fifth smaller for it.
package enum USGSTitle {
    /// The title USGS gives an event: `M 7.1 - 2019 Ridgecrest Earthquake Sequence`, the type
    /// named when it is not an earthquake (`M 1.7 Quarry Blast - 5km NW of Boron, CA`), `M ?`
    /// without a magnitude.
    /// The magnitude has one decimal, rounded half away from zero (2.65 is `2.7`, -0.01 is `-0.0`).
    package static func append(mag: Int64, type: some Collection<UInt8>, place: some Collection<UInt8>,
                               into out: inout [UInt8]) {
        out.append(contentsOf: "M ".utf8)
        if mag == RowBatch.null {
            out.append(UInt8(ascii: "?"))
        } else {
            oneDecimal(mag, into: &out)
        }
        if !type.isEmpty && !type.elementsEqual("earthquake".utf8) {
            var wordStart = true
            out.append(UInt8(ascii: " "))
            for c in type {
                out.append(wordStart && c >= 97 && c <= 122 ? c - 32 : c)
                wordStart = c == UInt8(ascii: " ")
            }
        }
        if !place.isEmpty {
            out.append(contentsOf: " - ".utf8)
            out.append(contentsOf: place)
        }
    }

    /// A scaled decimal with one digit after the point, rounded half away from zero, its sign kept.
    package static func oneDecimal(_ scaled: Int64, into out: inout [UInt8]) {
        let scale = Int(scaled & 31)
        let mantissa = scaled >> 6
        let negative = mantissa < 0 || scaled & 32 != 0
        var tenths = mantissa.magnitude
        if scale == 0 {
            let (product, overflow) = tenths.multipliedReportingOverflow(by: 10)
            guard !overflow else {
                out.append(contentsOf: String(ScaledDecimal.double(scaled)).utf8)
                return
            }
            tenths = product
        } else if scale > 19 {
            tenths = 0  // a mantissa below 2^57 is less than half of 10^19 tenths
        } else if scale > 1 {
            var divisor: UInt64 = 1
            for _ in 1..<scale { divisor *= 10 }
            let rest = tenths % divisor
            tenths /= divisor
            if rest >= divisor - rest { tenths += 1 }
        }
        if negative { out.append(UInt8(ascii: "-")) }
        out.append(contentsOf: String(tenths / 10).utf8)
        out.append(UInt8(ascii: "."))
        out.append(UInt8(48 + UInt8(tenths % 10)))
    }
}

extension USGSTitle {
    /// True when `title` is the one ``append(mag:type:place:into:)`` makes of the other fields;
    /// `scratch` is reused from call to call.
    package static func follows(_ title: UnsafeBufferPointer<UInt8>, mag: Int64, type: UnsafeBufferPointer<UInt8>,
                                place: UnsafeBufferPointer<UInt8>, scratch: inout [UInt8]) -> Bool {
        scratch.removeAll(keepingCapacity: true)
        append(mag: mag, type: type, place: place, into: &scratch)
        return scratch.elementsEqual(title)
    }
}
