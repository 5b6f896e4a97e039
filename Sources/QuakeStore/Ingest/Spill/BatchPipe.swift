import QuakeFormat
import QuakeSupport

/// What the parsing threads hand the loader.
package enum BatchItem: Sendable {
    /// A parsed batch and the file's raw bytes read so far.
    case batch(RowBatch, Int)
    case end
    case failed(QuakeError)
}

/// Parsed batches from the parsing threads to the loader, so parsing and spilling run on both
/// cores while at most `capacity` batches wait in memory.
package typealias BatchPipe = BoundedChannel<BatchItem>
