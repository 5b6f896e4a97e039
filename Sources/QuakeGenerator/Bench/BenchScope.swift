/// The rows of the partitions left after time pruning, and the on-disk bytes of the columns a
/// run read in them.
package struct BenchScope: Sendable, Equatable {
    package var rows: Int
    package var bytes: Int

    package init(rows: Int, bytes: Int) {
        self.rows = rows
        self.bytes = bytes
    }
}
