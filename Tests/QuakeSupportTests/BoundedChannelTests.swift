import Foundation
import QuakeSupport
import Synchronization
import Testing

/// The loader's hand-off under contention, against what a queue must do: every item arrives
/// once, each producer's items in its order, and closing wakes producers blocked on a full
/// channel. With `--sanitize=thread` these are the channel's race suite.
@Suite struct BoundedChannelTests {
    /// Runs `body(k)` on `n` plain threads and waits for all of them (at most `seconds`).
    static func onThreads(_ n: Int, seconds: Double = 60, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
        let group = DispatchGroup()
        for k in 0..<n {
            group.enter()
            Thread.detachNewThread {
                body(k)
                group.leave()
            }
        }
        return group.wait(timeout: .now() + seconds) == .success
    }

    @Test(arguments: [1, 3, 64])
    func everyItemOnceInEachProducersOrder(capacity: Int) {
        let producers = 4, each = 5_000
        let channel = BoundedChannel<Int>(capacity: capacity)
        let received = Mutex<[Int]>([])
        let consumer = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var got: [Int] = []
            got.reserveCapacity(producers * each)
            for _ in 0..<(producers * each) {
                guard let value = channel.take() else { break }
                got.append(value)
            }
            received.locked { $0 = got }
            consumer.signal()
        }
        let joined = Self.onThreads(producers) { p in
            for i in 0..<each { channel.put(p * 1_000_000 + i) }
        }
        #expect(joined, "producers did not finish")
        #expect(consumer.wait(timeout: .now() + 60) == .success, "the consumer did not get every item")
        let got = received.locked { $0 }
        #expect(got.count == producers * each)
        var next = [Int](repeating: 0, count: producers)
        var outOfOrder = 0
        for v in got {
            let p = v / 1_000_000, i = v % 1_000_000
            if p < producers && i == next[p] { next[p] += 1 } else { outOfOrder += 1 }
        }
        #expect(outOfOrder == 0 && next == [Int](repeating: each, count: producers))
    }

    @Test func closeWakesEveryBlockedProducer() {
        let channel = BoundedChannel<Int>(capacity: 1)
        let refused = Atomic<Int>(0)
        let taken = Mutex<[Int]>([])
        Thread.detachNewThread {
            for _ in 0..<5 {
                guard let value = channel.take() else { break }
                taken.locked { $0.append(value) }
            }
            channel.close()
        }
        // each producer puts until the channel refuses; all must return once it is closed
        let joined = Self.onThreads(3, seconds: 30) { p in
            var i = 0
            while channel.put(p * 1_000 + i) { i += 1 }
            refused.add(1, ordering: .relaxed)
        }
        #expect(joined, "a producer stayed blocked after close")
        #expect(refused.load(ordering: .relaxed) == 3)
        #expect(taken.locked { $0.count } == 5)
        #expect(!channel.put(7), "a closed channel took an item")
    }
}
