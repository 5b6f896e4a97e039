import Foundation
import QuakeFormat

/// An error the FDSN service answers with: a status and a detail, written as the
/// specification's plain-text body (or as USGS's JSON with `jsonerror=true`).
package struct FDSNError: Error, Sendable, Equatable {
    package var status: Int
    package var detail: String

    package init(status: Int, detail: String) {
        self.status = status
        self.detail = detail
    }

    /// A 400: an unknown parameter, a bad value or a bad combination.
    package static func badRequest(_ detail: String) -> FDSNError { FDSNError(status: 400, detail: detail) }

    /// The short phrase of a status line.
    package static func phrase(_ status: Int) -> String {
        switch status {
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 404: return "Not Found"
        case 413: return "Request Entity Too Large"
        case 414: return "Request-URI Too Long"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Error"
        }
    }

    /// The body fdsnws 1.2 prescribes for errors:
    ///
    ///     Error 400: Bad Request
    ///
    ///     <detail>
    ///
    ///     Usage details are available from <usage URL>
    ///
    ///     Request:
    ///     <request>
    ///
    ///     Request Submitted:
    ///     <UTC time>
    ///
    ///     Service version:
    ///     <version>
    package func text(request: String, usage: String, now: Date = Date()) -> String {
        """
        Error \(status): \(Self.phrase(status))

        \(detail)

        Usage details are available from \(usage)

        Request:
        \(request)

        Request Submitted:
        \(Self.timestamp(now))

        Service version:
        \(FDSNService.version)

        """
    }

    /// The body USGS writes with `jsonerror=true`.
    package func json(request: String, now: Date = Date()) -> String {
        let ms = Int64(now.timeIntervalSince1970 * 1000)
        return "{\"type\":\"FeatureCollection\",\"metadata\":{\"generated\":\(ms),\"url\":\(Self.quoted(request)),"
            + "\"title\":\"Search Error\",\"status\":\(status),\"api\":\"\(FDSNService.version)\","
            + "\"error\":\(Self.quoted(detail))},\"features\":[]}\n"
    }

    package static func timestamp(_ d: Date) -> String {
        var out: [UInt8] = []
        Timestamp.format(Int64((d.timeIntervalSince1970 * 1000).rounded(.down)), into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A JSON string literal.
    package static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 || u == "<" || u == ">" || u == "&" || u.value == 0x2028 || u.value == 0x2029 {
                    out += String(format: "\\u%04x", u.value)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
