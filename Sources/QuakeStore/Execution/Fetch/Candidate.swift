import QuakeFormat
/// A row competing for a place in a sorted result: its sort values, id and location.
package struct Candidate: Comparable {
    package var values: [SortValue]
    package var id: String
    package var ref: RowRef
    /// Bit k set when sort key k is descending.
    package var descending: UInt64

    package static func < (a: Candidate, b: Candidate) -> Bool { order(a, b) < 0 }
    package static func == (a: Candidate, b: Candidate) -> Bool { order(a, b) == 0 }

    package static func order(_ a: Candidate, _ b: Candidate) -> Int {
        for k in 0..<a.values.count {
            let comparison = SortValue.compare(a.values[k], b.values[k],
                                               ascending: a.descending & (1 << UInt64(k)) == 0)
            if comparison != 0 { return comparison }
        }
        if a.id != b.id { return a.id < b.id ? -1 : 1 }
        return 0
    }
}
