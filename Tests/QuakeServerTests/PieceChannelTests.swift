import Foundation
import QuakeFormat
import Synchronization
import Testing
@testable import QuakeServer

/// The server's producer-to-writer hand-off, against what a response stream must do: the head,
/// then every piece once and in order, then the end or the producer's error; a consumer that
/// leaves stops the producer. With `--sanitize=thread` these are its race suite.
@Suite struct PieceChannelTests {
    struct Boom: Error {}

    /// Every message of `channel`, in order, and how the stream ended.
    static func drain(_ channel: PieceChannel, upTo limit: Int = .max) async
        -> (heads: [Int], pieces: [UInt8], error: (any Error)?) {
        var heads: [Int] = [], pieces: [UInt8] = []
        do {
            while pieces.count < limit, let m = try await channel.next() {
                switch m {
                case .head(let n): heads.append(n)
                case .piece(let p): pieces += p
                }
            }
        } catch {
            return (heads, pieces, error)
        }
        return (heads, pieces, nil)
    }

    @Test(arguments: [1, 4])
    func everyPieceOnceInOrder(depth: Int) async {
        let channel = PieceChannel(depth: depth)
        let n = 3_000
        await channel.start { ch in
            try ch.push(.head(n))
            for i in 0..<n { try ch.push(.piece([UInt8(i & 0xff)])) }
        }
        let (heads, pieces, error) = await Self.drain(channel)
        #expect(error == nil)
        #expect(heads == [n])
        #expect(pieces == (0..<n).map { UInt8($0 & 0xff) })
    }

    @Test func aProducersErrorEndsTheStream() async {
        let channel = PieceChannel(depth: 2)
        await channel.start { ch in
            for i in 0..<50 { try ch.push(.piece([UInt8(i)])) }
            throw Boom()
        }
        let (_, pieces, error) = await Self.drain(channel)
        #expect(pieces.count == 50)
        #expect(error is Boom)
    }

    @Test func aConsumerThatLeavesStopsTheProducer() async {
        let channel = PieceChannel(depth: 2)
        let stopped = DispatchSemaphore(value: 0)
        let pushed = Atomic<Int>(0)
        await channel.start { ch in
            defer { stopped.signal() }
            // would run forever: only cancel() ends it, by making push throw
            while true {
                try ch.push(.piece([1]))
                pushed.add(1, ordering: .relaxed)
            }
        }
        let (_, pieces, _) = await Self.drain(channel, upTo: 10)
        #expect(pieces.count == 10)
        channel.cancel()
        #expect(channel.isCancelled)
        let ended = await Task.detached { stopped.wait(timeout: .now() + 30) == .success }.value
        #expect(ended, "the producer kept running after the consumer left")
        // depth 2: besides the 10 read, at most 2 queued and 1 in flight
        #expect(pushed.load(ordering: .relaxed) <= 13)
    }
}
