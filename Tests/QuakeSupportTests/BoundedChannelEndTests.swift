import Foundation
import QuakeSupport
import Synchronization
import Testing

/// The hand-off's ends, against what a queue must do: after ``BoundedChannel/end()`` the consumer
/// gets every waiting item, then nil, on a thread or in a task; a producer that makes its item in a
/// held slot never has more items made than the capacity; an async consumer sees a thread's items
/// in order.
@Suite struct BoundedChannelEndTests {
    @Test func endHandsOverWhatWaitsThenNil() {
        let channel = BoundedChannel<Int>(capacity: 8)
        for value in 0..<5 { #expect(channel.put(value)) }
        channel.end()
        var taken: [Int] = []
        while let value = channel.take() { taken.append(value) }
        #expect(taken == Array(0..<5))
        #expect(channel.take() == nil, "an ended channel handed out an item twice")
    }

    @Test func endWakesAWaitingConsumerThread() {
        let channel = BoundedChannel<Int>(capacity: 2)
        let finished = DispatchSemaphore(value: 0)
        let got = Mutex<Int?>(-1)
        Thread.detachNewThread {
            let value = channel.take()
            got.locked { $0 = value }
            finished.signal()
        }
        Thread.sleep(forTimeInterval: 0.05)
        channel.end()
        #expect(finished.wait(timeout: .now() + 10) == .success, "a consumer stayed blocked after end")
        #expect(got.locked { $0 } == nil)
    }

    @Test func anAsyncConsumerGetsAThreadsItemsInOrder() async {
        let channel = BoundedChannel<Int>(capacity: 3)
        let count = 2_000
        Thread.detachNewThread {
            for value in 0..<count where !channel.put(value) { return }
            channel.end()
        }
        var taken: [Int] = []
        while let value = await channel.next() { taken.append(value) }
        #expect(taken == Array(0..<count))
    }

    @Test func aHeldSlotBoundsTheItemsMade() {
        let capacity = 2
        let channel = BoundedChannel<Int>(capacity: capacity)
        // made and not yet let go by the consumer: at most the slots and the one the consumer
        // holds. A producer that made its item before waiting for a slot would reach one more.
        let outstanding = Mutex((now: 0, most: 0))
        Thread.detachNewThread {
            for value in 0..<500 {
                let handed = channel.put {
                    outstanding.locked { state in
                        state.now += 1
                        state.most = max(state.most, state.now)
                    }
                    return value
                }
                if !handed { return }
            }
            channel.end()
        }
        var taken = 0
        while channel.take() != nil {
            taken += 1
            outstanding.locked { $0.now -= 1 }
        }
        #expect(taken == 500)
        #expect(outstanding.locked { $0.most } <= capacity + 1, "more items were made than the channel holds")
    }

    @Test func closeRefusesAProducerMakingItsItem() {
        let channel = BoundedChannel<Int>(capacity: 1)
        let made = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let handed = Mutex<Bool?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = channel.put {
                made.signal()
                release.wait()
                return 1
            }
            handed.locked { $0 = result }
            finished.signal()
        }
        #expect(made.wait(timeout: .now() + 10) == .success)
        channel.close()
        release.signal()
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(handed.locked { $0 } == false, "a closed channel took an item")
        #expect(channel.take() == nil)
    }
}
