/// A set of columns, one bit each.
///
/// Not a `Set<Column>`: instantiating a set of a new element type costs a one-shot query a scan
/// of every protocol conformance in the binary. This is a plain integer, and iterates in column
/// order.
package struct ColumnSet: Sendable, Equatable, Sequence, ExpressibleByArrayLiteral {
    package private(set) var bits: UInt64

    package init(bits: UInt64) { self.bits = bits }

    package init() { bits = 0 }

    package init(arrayLiteral columns: Column...) {
        bits = 0
        for c in columns { insert(c) }
    }

    /// From an array, not any sequence: a generic function called across modules runs
    /// unspecialized, and looks up the sequence's element type at run time.
    package init(_ columns: [Column]) {
        bits = 0
        for c in columns { insert(c) }
    }

    /// Every column.
    package static let all = ColumnSet(Column.allCases)

    package var isEmpty: Bool { bits == 0 }
    package var count: Int { bits.nonzeroBitCount }

    package func contains(_ c: Column) -> Bool { bits & ColumnSet.bit(c) != 0 }

    package mutating func insert(_ c: Column) { bits |= ColumnSet.bit(c) }

    package mutating func formUnion(_ o: ColumnSet) { bits |= o.bits }

    package func union(_ o: ColumnSet) -> ColumnSet { ColumnSet(bits: bits | o.bits) }

    package func union(_ columns: [Column]) -> ColumnSet {
        var set = self
        for c in columns { set.insert(c) }
        return set
    }

    @inline(__always) private static func bit(_ c: Column) -> UInt64 { 1 << UInt64(c.rawValue) }

    package struct Iterator: IteratorProtocol {
        var rest: UInt64

        package mutating func next() -> Column? {
            while rest != 0 {
                let bit = rest.trailingZeroBitCount
                rest &= rest - 1
                if let column = Column(rawValue: bit) { return column }
            }
            return nil
        }
    }

    package func makeIterator() -> Iterator { Iterator(rest: bits) }
}
