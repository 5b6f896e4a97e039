import QuakeFormat
/// The rows of a scan window still in play: every row, or a sorted list of window-relative
/// row numbers. Each kernel narrows it in turn, so a conjunction checks only the rows its
/// earlier terms kept, and a window that matches fully allocates nothing.
package enum Selection: Equatable {
    /// Every row of a window of this many rows.
    case all(Int)
    /// These rows, ascending.
    case rows([UInt32])

    package static let none = Selection.rows([])

    package var count: Int {
        switch self {
        case .all(let rowCount): return rowCount
        case .rows(let list): return list.count
        }
    }

    package var isEmpty: Bool { count == 0 }

    /// Calls `body` with each selected row, ascending.
    @inline(__always)
    package func forEach(_ body: (Int) throws -> Void) rethrows {
        switch self {
        case .all(let rowCount): for i in 0..<rowCount { try body(i) }
        case .rows(let list): for i in list { try body(Int(i)) }
        }
    }

    /// The selected rows as a list.
    package var list: [UInt32] {
        switch self {
        case .all(let rowCount): return (0..<UInt32(rowCount)).map { $0 }
        case .rows(let list): return list
        }
    }

    /// The selected rows for which `keep` holds.
    @inline(__always)
    package func filter(_ keep: (Int) throws -> Bool) rethrows -> Selection {
        var out: [UInt32] = []
        switch self {
        case .all(let rowCount):
            out.reserveCapacity(rowCount / 4)
            for i in 0..<rowCount where try keep(i) { out.append(UInt32(i)) }
            if out.count == rowCount { return self }
        case .rows(let list):
            out.reserveCapacity(list.count)
            for i in list where try keep(Int(i)) { out.append(i) }
        }
        return .rows(out)
    }

    /// Rows selected by both (both ascending: one merge pass).
    package func intersection(_ o: Selection) -> Selection {
        switch (self, o) {
        case (.all, _): return o
        case (_, .all): return self
        case (.rows(let left), .rows(let right)):
            var out: [UInt32] = []
            out.reserveCapacity(Swift.min(left.count, right.count))
            var leftIndex = 0
            var rightIndex = 0
            while leftIndex < left.count && rightIndex < right.count {
                if left[leftIndex] == right[rightIndex] {
                    out.append(left[leftIndex])
                    leftIndex += 1
                    rightIndex += 1
                } else if left[leftIndex] < right[rightIndex] {
                    leftIndex += 1
                } else {
                    rightIndex += 1
                }
            }
            return .rows(out)
        }
    }

    /// Rows selected by either, within a window of `n` rows.
    package func union(_ o: Selection, window n: Int) -> Selection {
        switch (self, o) {
        case (.all, _), (_, .all): return .all(n)
        case (.rows(let left), .rows(let right)):
            var out: [UInt32] = []
            out.reserveCapacity(left.count + right.count)
            var leftIndex = 0
            var rightIndex = 0
            while leftIndex < left.count || rightIndex < right.count {
                if rightIndex == right.count || (leftIndex < left.count && left[leftIndex] < right[rightIndex]) {
                    out.append(left[leftIndex])
                    leftIndex += 1
                } else if leftIndex == left.count || right[rightIndex] < left[leftIndex] {
                    out.append(right[rightIndex])
                    rightIndex += 1
                } else {
                    out.append(left[leftIndex])
                    leftIndex += 1
                    rightIndex += 1
                }
            }
            return out.count == n ? .all(n) : .rows(out)
        }
    }

    /// Rows of a window of `n` rows that are not selected.
    package func complement(window n: Int) -> Selection {
        switch self {
        case .all: return .none
        case .rows(let list):
            if list.isEmpty { return .all(n) }
            var out: [UInt32] = []
            out.reserveCapacity(n - list.count)
            var listIndex = 0
            for i in 0..<UInt32(n) {
                if listIndex < list.count && list[listIndex] == i { listIndex += 1 } else { out.append(i) }
            }
            return .rows(out)
        }
    }
}
