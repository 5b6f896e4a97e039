import Foundation
import Hummingbird
import QuakeFormat

/// Logs one line per request to stderr: method, path, status, milliseconds to the response
/// head, and the rows the answer carries (`-` when it carries none).
struct RequestLog: RouterMiddleware {
    typealias Context = BasicRequestContext
    enum Style: String, Sendable, CaseIterable { case text, json }
    let style: Style?

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let style else { return try await next(request, context) }
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let response = try await next(request, context)
            write(style, request, status: Int(response.status.code), start: start,
                  rows: response.headers[FDSNService.rowsHeader])
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            write(style, request, status: Int(status), start: start, rows: nil)
            throw error
        }
    }

    private func write(_ style: Style, _ r: Request, status: Int, start: UInt64, rows: String?) {
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        let path = r.uri.description
        let msText = String(format: "%.2f", ms)
        let line: String
        switch style {
        case .text:
            line = "\(r.method.rawValue) \(path) \(status) \(msText) ms \(rows.map { "\($0) rows" } ?? "-")\n"
        case .json:
            line = "{\"method\":\"\(r.method.rawValue)\",\"path\":\(FDSNError.quoted(path)),\"status\":\(status),"
                + "\"ms\":\(msText),\"rows\":\(rows ?? "null")}\n"
        }
        // through the one I/O layer; a log line that cannot be written must not fail the request
        try? Array(line.utf8).withStoreBytes { (b) throws(QuakeError) in try FileIO.writeAll(2, b, path: "stderr") }
    }
}
