import Foundation
import QuakeFormat
import QuakeSupport

/// Decompressed chunks handed from a thread of its own to the parser, at most `capacity`
/// ahead: a `.gz` or `.zst` file inflates on one core while the parser works on the other.
///
/// The producer runs `produce` until it returns nil (the end) or throws; ``close()`` (the
/// consumer is gone) makes it stop at its next chunk.
final class ReadAhead: Sendable {
    enum Item {
        /// A chunk, and the raw (compressed) bytes read when it was made.
        case chunk([UInt8], Int)
        case end
        case failed(QuakeError)
    }

    private let channel: BoundedChannel<Item>

    /// Starts the producer thread.
    init(capacity: Int = 4, produce: @escaping @Sendable () throws(QuakeError) -> ([UInt8], Int)?) {
        let channel = BoundedChannel<Item>(capacity: capacity)
        self.channel = channel
        Thread.detachNewThread {
            while true {
                let item: Item
                do throws(QuakeError) {
                    if let (chunk, raw) = try produce() { item = .chunk(chunk, raw) } else { item = .end }
                } catch {
                    item = .failed(error)
                }
                guard channel.put(item) else { return }
                guard case .chunk = item else { return }
            }
        }
    }

    /// The next item, waiting for it.
    func take() -> Item { channel.take() ?? .end }

    /// The consumer is done: wakes and stops the producer.
    func close() { channel.close() }
}
