/// The rows of the partitions left after time pruning, and the on-disk bytes of the columns a
/// run read in them.
package struct BenchScope: Sendable, Equatable {
    /// Rows of the partitions left after time pruning.
    package var rows: Int
    /// On-disk bytes of the columns read in those partitions.
    package var bytes: Int

    /// A scope of `rows` rows and `bytes` bytes.
    package init(rows: Int, bytes: Int) {
        self.rows = rows
        self.bytes = bytes
    }
}
