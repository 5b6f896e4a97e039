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
        case .all(let n): return n
        case .rows(let r): return r.count
        }
    }

    package var isEmpty: Bool { count == 0 }

    /// Calls `body` with each selected row, ascending.
    @inline(__always)
    package func forEach(_ body: (Int) throws -> Void) rethrows {
        switch self {
        case .all(let n): for i in 0..<n { try body(i) }
        case .rows(let r): for i in r { try body(Int(i)) }
        }
    }

    /// The selected rows as a list.
    package var list: [UInt32] {
        switch self {
        case .all(let n): return (0..<UInt32(n)).map { $0 }
        case .rows(let r): return r
        }
    }

    /// The selected rows for which `keep` holds.
    @inline(__always)
    package func filter(_ keep: (Int) throws -> Bool) rethrows -> Selection {
        var out: [UInt32] = []
        switch self {
        case .all(let n):
            out.reserveCapacity(n / 4)
            for i in 0..<n where try keep(i) { out.append(UInt32(i)) }
            if out.count == n { return self }
        case .rows(let r):
            out.reserveCapacity(r.count)
            for i in r where try keep(Int(i)) { out.append(i) }
        }
        return .rows(out)
    }

    /// Rows selected by both (both ascending: one merge pass).
    package func intersection(_ o: Selection) -> Selection {
        switch (self, o) {
        case (.all, _): return o
        case (_, .all): return self
        case (.rows(let a), .rows(let b)):
            var out: [UInt32] = []
            out.reserveCapacity(Swift.min(a.count, b.count))
            var i = 0, j = 0
            while i < a.count && j < b.count {
                if a[i] == b[j] { out.append(a[i]); i += 1; j += 1 } else if a[i] < b[j] { i += 1 } else { j += 1 }
            }
            return .rows(out)
        }
    }

    /// Rows selected by either, within a window of `n` rows.
    package func union(_ o: Selection, window n: Int) -> Selection {
        switch (self, o) {
        case (.all, _), (_, .all): return .all(n)
        case (.rows(let a), .rows(let b)):
            var out: [UInt32] = []
            out.reserveCapacity(a.count + b.count)
            var i = 0, j = 0
            while i < a.count || j < b.count {
                if j == b.count || (i < a.count && a[i] < b[j]) {
                    out.append(a[i]); i += 1
                } else if i == a.count || b[j] < a[i] {
                    out.append(b[j]); j += 1
                } else {
                    out.append(a[i]); i += 1; j += 1
                }
            }
            return out.count == n ? .all(n) : .rows(out)
        }
    }

    /// Rows of a window of `n` rows that are not selected.
    package func complement(window n: Int) -> Selection {
        switch self {
        case .all: return .none
        case .rows(let r):
            if r.isEmpty { return .all(n) }
            var out: [UInt32] = []
            out.reserveCapacity(n - r.count)
            var j = 0
            for i in 0..<UInt32(n) {
                if j < r.count && r[j] == i { j += 1 } else { out.append(i) }
            }
            return .rows(out)
        }
    }
}
