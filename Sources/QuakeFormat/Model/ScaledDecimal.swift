/// Decimal numbers held as scaled integers so that the feed's text comes back exactly.
///
/// Encoding: `mantissa << 6 | negativeZero << 5 | scale`, where the value is
/// `mantissa / 10^scale` and `scale` is the count of digits after the point as written
/// ("2.50" keeps scale 2). `Int64.min` is null. Decoding to `Double` divides two exactly
/// representable doubles, so it gives the same correctly rounded value as parsing the text.
package enum ScaledDecimal {
    package static let null = Int64.min
    package static let maxMantissa: Int64 = (1 << 57) - 1
    package static let maxScale = 22

    /// `10^k` as repeated multiplication by 10 gives it (past 10^22, some round below the literal).
    /// A literal, so its storage is a constant in the binary, and the reads in hot loops compile
    /// without a call to the lazy initializer (`swift_once`: 0.94 % of a CSV load before, 0.03 %).
    package static let pow10: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
        1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 9.999999999999999e+24, 9.999999999999999e+25, 9.999999999999999e+26,
        1e28, 1e29, 9.999999999999999e+29, 9.999999999999999e+30
    ]

    /// Why a field is not a decimal.
    package enum ParseError: Error { case empty, notANumber, tooManyDigits }

    /// Parses `[+-]digits[.digits]` from raw bytes.
    @inline(__always)
    package static func parse(_ p: UnsafeRawBufferPointer) throws(ParseError) -> Int64 {
        var position = 0
        let count = p.count
        guard count > 0 else { throw .empty }
        var negative = false
        // SAFETY: count > 0 is checked before p[0]; the loop reads p[position] only while position < count.
        if p[0] == UInt8(ascii: "-") {
            negative = true
            position = 1
        } else if p[0] == UInt8(ascii: "+") {
            position = 1
        }
        var mantissa: Int64 = 0
        var digits = 0
        var scale = -1
        while position < count {
            let byte = p[position]
            if byte >= 48 && byte <= 57 {
                guard mantissa < maxMantissa / 10 else { throw .tooManyDigits }
                mantissa = mantissa * 10 + Int64(byte - 48)
                digits += 1
                if scale >= 0 { scale += 1 }
            } else if byte == UInt8(ascii: ".") && scale < 0 {
                scale = 0
            } else if (byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")) && digits > 0 {
                return try exponent(p, from: position + 1, mantissa: mantissa, scale: max(scale, 0), negative: negative)
            } else {
                throw .notANumber
            }
            position += 1
        }
        guard digits > 0 else { throw .notANumber }
        if scale < 0 { scale = 0 }
        guard scale <= maxScale else { throw .tooManyDigits }
        let negZero: Int64 = negative && mantissa == 0 ? 32 : 0
        let signed = negative ? -mantissa : mantissa
        return signed << 6 | negZero | Int64(scale)
    }

    private static func exponent(_ p: UnsafeRawBufferPointer, from start: Int, mantissa: Int64, scale: Int,
                                 negative: Bool) throws(ParseError) -> Int64 {
        var position = start
        var expNeg = false
        // SAFETY: every p[position] read is preceded by position < p.count (the condition, the guard and the loop
        // bound).
        if position < p.count && (p[position] == UInt8(ascii: "-") || p[position] == UInt8(ascii: "+")) {
            expNeg = p[position] == UInt8(ascii: "-")
            position += 1
        }
        guard position < p.count else { throw .notANumber }
        var exponent = 0
        while position < p.count {
            let digit = Int(p[position]) - 48
            guard digit >= 0 && digit <= 9, exponent < 100 else { throw .notANumber }
            exponent = exponent * 10 + digit
            position += 1
        }
        var shift = scale - (expNeg ? -exponent : exponent)
        var scaled = mantissa
        while shift < 0 {
            guard scaled < maxMantissa / 10 else { throw .tooManyDigits }
            scaled *= 10
            shift += 1
        }
        guard shift <= maxScale else { throw .tooManyDigits }
        return (negative ? -scaled : scaled) << 6 | Int64(shift)
    }

    /// Encodes an integer (scale 0).
    package static func fromInteger(_ v: Int64) -> Int64 { v << 6 }

    /// The value as a `Double` (NaN for null).
    @inline(__always)
    package static func double(_ e: Int64) -> Double {
        if e == null { return .nan }
        let scale = Int(e & 31)
        let mantissa = e >> 6
        if mantissa == 0 && e & 32 != 0 { return -0.0 }
        if mantissa.magnitude > 1 << 53 { return preciseDouble(e) }
        return Double(mantissa) / pow10[scale]
    }

    /// Mantissas past 2^53 are not exact doubles: parse the text instead (rare: 17-digit values).
    private static func preciseDouble(_ e: Int64) -> Double {
        var out: [UInt8] = []
        format(e, into: &out)
        return Double(String(decoding: out, as: UTF8.self)) ?? .nan
    }

    /// The value as text exactly as it was written, appended to `out`.
    package static func format(_ e: Int64, into out: inout [UInt8]) {
        let scale = Int(e & 31)
        let mantissa = e >> 6
        let negative = mantissa < 0 || e & 32 != 0
        var magnitude = mantissa.magnitude
        // the digits from the right into a scratch of 48 bytes (at most 32 digits, a point and a
        // sign), at least one before the point, then one append
        // SAFETY: `position` starts at 48 and goes down once per byte written; at most max(20, scale + 1) <= 32 digits,
        // one point and one sign are written, so it stays at 14 or above and buf[position...] lies in the scratch.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buf in
            var position = 48, digitCount = 0
            repeat {
                if scale > 0 && digitCount == scale {
                    position -= 1
                    buf[position] = UInt8(ascii: ".")
                }
                position -= 1
                buf[position] = UInt8(truncatingIfNeeded: 48 &+ magnitude % 10)
                magnitude /= 10
                digitCount += 1
            } while magnitude > 0 || digitCount <= scale
            if negative {
                position -= 1
                buf[position] = UInt8(ascii: "-")
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[position...]))
        }
    }

    /// The value as text exactly as it was written.
    package static func string(_ e: Int64) -> String? {
        if e == null { return nil }
        var out: [UInt8] = []
        format(e, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
