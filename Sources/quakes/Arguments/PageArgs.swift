import ArgumentParser
import Foundation
import QuakeStore

/// The values of the sorting and paging flags (``PageOptions``), and the query they describe.
struct PageArgs: Equatable {
    var sort: [String] = []
    var limit: Int?
    var offset: Int?
    var page: Int?
    var pageSize: Int?
    var after: String?
    var orderby: String?

    func validate() throws {
        _ = try sortKeys()
        if try distanceOrder() != nil, after != nil {
            throw ValidationError("--after: --sort distance pages with --page or --offset")
        }
        if let limit, limit < 0 { throw ValidationError("--limit must be >= 0") }
        if let offset, offset < 0 { throw ValidationError("--offset must be >= 0") }
        if let page, page < 1 { throw ValidationError("--page counts from 1") }
        if let page, (page - 1).multipliedReportingOverflow(by: pageSize ?? 50).overflow {
            throw ValidationError("--page \(page) is beyond any store (page × page size overflows)")
        }
        if let pageSize, pageSize < 1 { throw ValidationError("--page-size must be >= 1") }
        if page != nil && (offset != nil || after != nil) {
            throw ValidationError("--page cannot be combined with --offset or --after")
        }
        if let after, Cursor(token: after) == nil { throw ValidationError("--after: not a cursor printed by quakes") }
    }

    func sortKeys(default d: [SortKey] = [SortKey(.time, ascending: false)]) throws -> [SortKey] {
        if let orderby {
            guard sort.isEmpty else { throw ValidationError("--orderby cannot be combined with --sort") }
            switch orderby {
            case "time": return [SortKey(.time, ascending: false)]
            case "time-asc": return [SortKey(.time, ascending: true)]
            case "magnitude": return [SortKey(.mag, ascending: false)]
            case "magnitude-asc": return [SortKey(.mag, ascending: true)]
            default: throw ValidationError("--orderby: expected time, time-asc, magnitude or magnitude-asc")
            }
        }
        if sort.isEmpty { return d }
        if try distanceOrder() != nil { return d }
        return try sort.map { text in
            guard let key = SortKey(parsing: text) else {
                throw ValidationError("--sort: expected FIELD[:asc|desc] with a known field, got '\(text)'")
            }
            return key
        }
    }

    /// `--sort distance[:asc|desc]`: true for nearest first (the default), false for farthest
    /// first; nil when the order is by fields.
    func distanceOrder() throws -> Bool? {
        guard let index = sort.firstIndex(where: { $0 == "distance" || $0.hasPrefix("distance:") }) else {
            return nil
        }
        guard sort.count == 1 else {
            throw ValidationError("--sort distance orders by distance alone (id breaks ties); "
                + "drop the other --sort keys")
        }
        guard orderby == nil else { throw ValidationError("--orderby cannot be combined with --sort") }
        switch sort[index].dropFirst("distance".count) {
        case "", ":asc": return true
        case ":desc": return false
        default: throw ValidationError("--sort: expected distance, distance:asc or distance:desc, got '\(sort[index])'")
        }
    }

    func spec(filter: Filter, defaultLimit: Int? = nil) throws -> QuerySpec {
        let keys = try sortKeys()
        var spec = QuerySpec(filter: filter, sort: keys, limit: limit ?? defaultLimit, offset: offset ?? 0)
        if let page {
            let size = pageSize ?? 50
            spec.offset = (page - 1) * size
            spec.limit = size
        } else if let pageSize, limit == nil {
            spec.limit = pageSize
        }
        if let after {
            let cursor = Cursor(token: after)!
            guard cursor.sort == keys else {
                let order = cursor.sort.map(\.description).joined(separator: " --sort ")
                throw ValidationError("--after: the cursor was made with --sort \(order); use the same order")
            }
            spec.after = cursor
        }
        return spec
    }
}
