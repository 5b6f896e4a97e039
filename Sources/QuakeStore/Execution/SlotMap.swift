/// An open-addressing hash map from 64-bit keys to dense slot numbers (0, 1, 2, ... in order of
/// first sight): linear probing, Fibonacci hashing, at most half full. Lookups of a batch of keys
/// run over the table's buffers with no per-key allocation, hashing or uniqueness check of
/// Swift's `Dictionary`.
package struct SlotMap {
    /// Per table index: the key there, and its slot (-1 for an empty index).
    private var tableKeys: [Int64]
    private var tableSlots: [Int32]
    private var shift: UInt64
    /// The keys by slot.
    package private(set) var keys: [Int64] = []

    package init(capacity: Int = 1024) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        tableKeys = [Int64](repeating: 0, count: size)
        tableSlots = [Int32](repeating: -1, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    package var count: Int { keys.count }

    @inline(__always)
    private static func index(_ key: Int64, _ shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot of each key of `batch`, written to `slots`; keys not seen before get the next slots.
    package mutating func slots(_ batch: UnsafeBufferPointer<Int64>, into slots: UnsafeMutableBufferPointer<Int>) {
        var position = 0
        while position < batch.count {
            if (keys.count + 1) * 2 > tableKeys.count { grow() }
            // as many keys as the table takes before it must grow
            let room = tableKeys.count / 2 - keys.count
            var made: [Int64] = []
            let first = keys.count
            let shift = self.shift
            let mask = tableKeys.count - 1
            // SAFETY: every index is masked to the table's size, which both arrays have; `position`
            // stays below batch.count, which `slots` has too (the caller's contract, checked below).
            precondition(slots.count >= batch.count)
            tableKeys.withUnsafeMutableBufferPointer { storedKeys in
                tableSlots.withUnsafeMutableBufferPointer { storedSlots in
                    while position < batch.count && made.count < room {
                        let key = batch[position]
                        var index = SlotMap.index(key, shift)
                        while true {
                            let slot = storedSlots[index]
                            if slot < 0 {
                                storedSlots[index] = Int32(first + made.count)
                                storedKeys[index] = key
                                slots[position] = first + made.count
                                made.append(key)
                                break
                            }
                            if storedKeys[index] == key {
                                slots[position] = Int(slot)
                                break
                            }
                            index = (index + 1) & mask
                        }
                        position += 1
                    }
                }
            }
            keys.append(contentsOf: made)
        }
    }

    /// The slot of one key.
    package mutating func slot(_ key: Int64) -> Int {
        var answer = 0
        // SAFETY: both buffers hold exactly one element and do not leave the closures.
        withUnsafePointer(to: key) { keyPointer in
            withUnsafeMutablePointer(to: &answer) { answerPointer in
                slots(UnsafeBufferPointer(start: keyPointer, count: 1), into: UnsafeMutableBufferPointer(start: answerPointer, count: 1))
            }
        }
        return answer
    }

    /// Doubles the table and puts every key back.
    private mutating func grow() {
        let size = tableKeys.count * 2
        tableKeys = [Int64](repeating: 0, count: size)
        tableSlots = [Int32](repeating: -1, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
        let mask = size - 1
        for (slot, key) in keys.enumerated() {
            var index = SlotMap.index(key, shift)
            while tableSlots[index] >= 0 { index = (index + 1) & mask }
            tableSlots[index] = Int32(slot)
            tableKeys[index] = key
        }
    }
}
