import Foundation

extension Cursor {
    /// The opaque text form printed by the CLI: base64url (unpadded) of the cursor's JSON, the
    /// form `JSONEncoder` gives it with sorted keys, written by hand so that a one-shot query does
    /// not start an encoder (and its reflection) to print its last line. ``init(token:)`` reads
    /// it with `JSONDecoder`.
    /// A number that is not finite, which JSON cannot hold, gives a token that does not read back.
    package var token: String {
        var json: [UInt8] = []
        json.reserveCapacity(96 + id.utf8.count)
        json.append(contentsOf: #"{"id":"#.utf8)
        Cursor.appendString(id, to: &json)
        json.append(contentsOf: #","sort":["#.utf8)
        for (k, key) in sort.enumerated() {
            if k > 0 { json.append(UInt8(ascii: ",")) }
            json.append(contentsOf: #"{"ascending":"#.utf8)
            json.append(contentsOf: (key.ascending ? "true" : "false").utf8)
            json.append(contentsOf: #","column":"#.utf8)
            Cursor.appendString(key.column.name, to: &json)
            json.append(UInt8(ascii: "}"))
        }
        json.append(contentsOf: #"],"values":["#.utf8)
        for (k, value) in values.enumerated() {
            if k > 0 { json.append(UInt8(ascii: ",")) }
            switch value {
            case .null:
                json.append(contentsOf: #"{"null":{}}"#.utf8)
            case .number(let number):
                json.append(contentsOf: #"{"number":{"_0":"#.utf8)
                json.append(contentsOf: (number.isFinite ? "\(number)" : "\"\(number)\"").utf8)
                json.append(contentsOf: "}}".utf8)
            case .text(let text):
                json.append(contentsOf: #"{"text":{"_0":"#.utf8)
                Cursor.appendString(text, to: &json)
                json.append(contentsOf: "}}".utf8)
            }
        }
        json.append(contentsOf: "]}".utf8)
        var out = ""
        out.reserveCapacity((json.count + 2) / 3 * 4)
        for scalar in Data(json).base64EncodedString().unicodeScalars where scalar != "=" {
            out.unicodeScalars.append(scalar == "+" ? "-" : scalar == "/" ? "_" : scalar)
        }
        return out
    }

    /// Reads a token ``token`` printed; nil for anything else.
    package init?(token: String) {
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let cursor = try? JSONDecoder().decode(Cursor.self, from: data),
              cursor.values.count == cursor.sort.count else { return nil }
        self = cursor
    }

    /// Appends `s` as a JSON string: quotes, backslashes and control characters escaped.
    private static func appendString(_ s: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 15)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
