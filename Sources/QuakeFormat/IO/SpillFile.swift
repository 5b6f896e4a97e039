#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Synchronization

/// An append-only scratch file of zstd frames, each `[u32 length][u32 raw length][frame]`, used
/// by the loader to stage rows on disk so memory stays bounded by batch size.
///
/// A spill starts in memory and moves to its file when the process's spills together would hold
/// more than ``memoryBudget`` bytes: a small load stages everything without creating a file (a
/// 1,000-event commit created and removed 130 spill files, 7 % of its time in ext4's inode
/// allocator), and a large one holds at most the budget in memory whatever its size. The frames
/// and `size` are the same either way.
package final class SpillFile {
    package let path: String
    /// The open file; -1 until the spill moves to disk.
    private var fd: Int32 = -1
    /// The frames while the spill is in memory; nil once it is on disk.
    private var memory: [UInt8]? = []
    /// The bytes this spill may hold in memory before it moves to its file (0: on disk from the first append).
    private let memoryLimit: Int
    /// What the spills sharing it hold in memory together.
    private let budget: Budget
    package private(set) var size = 0

    /// The bytes all spills of the process may hold in memory at once.
    package static let memoryBudget = 16 << 20

    /// The memory a set of spills may hold together, and what they hold now.
    package final class Budget: Sendable {
        package let limit: Int
        fileprivate let held = Atomic<Int>(0)

        package init(limit: Int) {
            self.limit = limit
        }

        /// The process's spills.
        package static let process = Budget(limit: SpillFile.memoryBudget)
    }

    /// A spill at `path`; `memoryLimit` 0 puts it on disk at the first append.
    package init(path: String, memoryLimit: Int = SpillFile.memoryBudget, budget: Budget = .process) {
        self.path = path
        self.memoryLimit = memoryLimit
        self.budget = budget
    }

    deinit {
        if fd >= 0 { FileIO.close(fd) }
        if let memory { budget.held.subtract(memory.count, ordering: .relaxed) }
    }

    /// Whether the spill is still held in memory.
    package var inMemory: Bool { memory != nil }

    /// The file, created (and emptied) on first use.
    private func opened() throws(QuakeError) -> Int32 {
        if fd < 0 { fd = try FileIO.open(path, O_CREAT | O_TRUNC | O_RDWR) }
        return fd
    }

    /// Moves the frames held in memory to the file; the spill stays in memory if that fails.
    private func moveToDisk() throws(QuakeError) {
        guard let held = memory else { return }
        let fd = try opened()
        if !held.isEmpty { try FileIO.pwriteAll(fd, held, at: 0, path: path) }
        memory = nil
        budget.held.subtract(held.count, ordering: .relaxed)
    }

    /// Whether `count` more bytes may stay in memory, counted against the budget when they may.
    private func reserve(_ count: Int) -> Bool {
        guard let memory, memory.count + count <= memoryLimit else { return false }
        let before = budget.held.add(count, ordering: .relaxed).oldValue
        if before + count <= budget.limit { return true }
        budget.held.subtract(count, ordering: .relaxed)
        return false
    }

    package func append(_ payload: [UInt8]) throws(QuakeError) {
        var writer = ByteWriter()
        let frame = Zstd.compress(payload, level: 1)
        writer.u32(UInt32(frame.count))
        writer.u32(UInt32(payload.count))
        writer.bytes.append(contentsOf: frame)
        if reserve(writer.bytes.count) {
            memory?.append(contentsOf: writer.bytes)
        } else {
            try moveToDisk()
            try FileIO.pwriteAll(try opened(), writer.bytes, at: size, path: path)
        }
        size += writer.bytes.count
    }

    /// Drops everything appended after `mark` (a failed input file).
    package func truncate(to mark: Int) throws(QuakeError) {
        guard mark != size else { return }
        if let held = memory {
            let kept = min(mark, held.count)
            memory?.removeSubrange(kept...)
            budget.held.subtract(held.count - kept, ordering: .relaxed)
        } else {
            try FileIO.truncate(try opened(), to: mark, path: path)
        }
        size = mark
    }

    /// Calls `body` with each frame's decompressed payload, in order.
    package func forEach(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var off = 0
        while off < size {
            let head = try bytes(count: 8, at: off)
            // SAFETY: head holds exactly 8 bytes; the two loads read bytes 0..<4 and 4..<8.
            let clen = Int(head.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 0, as: UInt32.self) })
            let rlen = Int(head.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) })
            let frame = try bytes(count: clen, at: off + 8)
            // SAFETY: the frame's bytes are lent to the decompressor for the call only.
            let payload = try frame.withUnsafeBytes { (p) throws(QuakeError) in
                try Zstd.decompress(p, expectedSize: rlen)
            }
            // SAFETY: the payload's bytes are lent to body for the call only (its contract: not kept).
            try payload.withUnsafeBytes { try body($0) }
            off += 8 + clen
        }
    }

    /// `count` bytes at `offset`, from memory or the file.
    private func bytes(count: Int, at offset: Int) throws(QuakeError) -> [UInt8] {
        guard let memory else { return try FileIO.preadExactly(try opened(), count: count, at: offset, path: path) }
        guard offset >= 0, count >= 0, offset + count <= memory.count else {
            throw .io(path, "spill frame past the \(memory.count) bytes held")
        }
        return Array(memory[offset..<(offset + count)])
    }
}
