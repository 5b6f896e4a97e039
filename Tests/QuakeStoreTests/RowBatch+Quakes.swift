@testable import QuakeFormat

extension RowBatch {
    /// Every row of the batch as a `Quake`, in row order.
    var quakes: [Quake] { (0..<count).map { Quake(batch: self, row: $0) } }
}
