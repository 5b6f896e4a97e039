import Foundation
import QuakeFormat

/// One sort key. Nulls sort last in either direction; the event id is always the final
/// tie-breaker, so every order is total and stable.
package struct SortKey: Sendable, Equatable, Codable, CustomStringConvertible {
    package var column: Column
    package var ascending: Bool

    package init(_ column: Column, ascending: Bool = true) {
        self.column = column
        self.ascending = ascending
    }

    package var description: String { "\(column.name):\(ascending ? "asc" : "desc")" }

    /// Parses `FIELD[:asc|desc]`.
    package init?(parsing s: String) {
        let parts = s.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, let parsed = Column(name: first) else { return nil }
        column = parsed
        if parts.count == 2 {
            switch parts[1].lowercased() {
            case "asc": ascending = true
            case "desc": ascending = false
            default: return nil
            }
        } else {
            ascending = true
        }
    }
}

extension Column: Codable {
    /// Decodes a column from its USGS field name (`"mag"`), as ``encode(to:)`` writes it.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let column = Column(name: name) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "unknown column \(name)"))
        }
        self = column
    }

    /// Encodes the column as its USGS field name (``Column/name``), not its ordinal, so encoded
    /// data survives a change of storage order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

/// A sort value of one row: numbers (and times) as doubles, strings as strings, or null.
package enum SortValue: Sendable, Hashable, Codable {
    case number(Double)
    case text(String)
    case null

    /// Ordering for one key: nulls last whatever the direction.
    package static func compare(_ a: SortValue, _ b: SortValue, ascending: Bool) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return 1
        case (_, .null): return -1
        case (.number(let left), .number(let right)):
            if left == right { return 0 }
            return (left < right) == ascending ? -1 : 1
        case (.text(let left), .text(let right)):
            if left == right { return 0 }
            return (left < right) == ascending ? -1 : 1
        case (.number, .text): return -1
        case (.text, .number): return 1
        }
    }
}

/// A keyset cursor: the sort values and id of the last row of a page. Pages resume after it
/// exactly, even when loads happen in between.
package struct Cursor: Sendable, Codable, Equatable {
    package var sort: [SortKey]
    package var values: [SortValue]
    package var id: String

    package init(sort: [SortKey], values: [SortValue], id: String) {
        self.sort = sort
        self.values = values
        self.id = id
    }

    /// True when a row with `values` and `id` comes strictly after the cursor.
    package func isBefore(_ values: [SortValue], id: String) -> Bool {
        for (k, key) in sort.enumerated() {
            let comparison = SortValue.compare(self.values[k], values[k], ascending: key.ascending)
            if comparison != 0 { return comparison < 0 }
        }
        return self.id < id
    }
}
