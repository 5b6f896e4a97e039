/// An open-addressing hash map from keys of `width` 64-bit parts to dense slot numbers (0, 1,
/// 2, ... in order of first sight): linear probing, a multiply-xorshift hash, at most half
/// full. Lookups of a batch of keys run over the table's buffers with no per-key allocation,
/// and none of the SipHash or uniqueness checks of Swift's `Dictionary`.
package struct SlotMap {
    package let width: Int
    /// Per table index: the key's parts there (`width` each), and its slot (-1 for empty).
    private var tableKeys: [Int64]
    private var tableSlots: [Int32]
    private var shift: UInt64
    /// The keys by slot, `width` parts each.
    package private(set) var keys: [Int64] = []

    package init(width: Int = 1, capacity: Int = 1024) {
        self.width = width
        var size = 16
        while size < capacity * 2 { size *= 2 }
        tableKeys = [Int64](repeating: 0, count: size * width)
        tableSlots = [Int32](repeating: -1, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    package var count: Int { keys.count / width }

    /// The table index where the probe for the key at `parts` starts.
    @inline(__always)
    private static func start(_ parts: UnsafePointer<Int64>, _ width: Int, _ shift: UInt64) -> Int {
        var hash: UInt64 = 0
        for part in 0..<width {
            hash = (hash ^ UInt64(bitPattern: parts[part])) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 31
        }
        return Int(truncatingIfNeeded: (hash &* 0xBF58_476D_1CE4_E5B9) >> shift)
    }

    /// The slot of each key of `batch` (`width` parts per key, one key after another), written
    /// to `slots`; keys not seen before get the next slots.
    package mutating func slots(_ batch: UnsafeBufferPointer<Int64>, into slots: UnsafeMutableBufferPointer<Int>) {
        // Long by design: the hot loop of the group-key slot lookup; see Benchmarks/RESULTS.md
        // (6 by net: count, avg(mag), max(depth)).
        let width = self.width
        let keyCount = batch.count / width
        precondition(slots.count >= keyCount && batch.count == keyCount * width)
        guard let base = batch.baseAddress else { return }
        var position = 0
        while position < keyCount {
            if (count + 1) * 2 > tableSlots.count { grow() }
            // as many keys as the table takes before it must grow
            let room = tableSlots.count / 2 - count
            let first = count
            var made = 0
            var madeKeys: [Int64] = []
            let shift = self.shift
            let mask = tableSlots.count - 1
            // SAFETY: a table index is masked to tableSlots.count, and its parts lie below
            // (index + 1) * width <= tableKeys.count; a key's parts lie below keyCount * width =
            // batch.count; `position` < keyCount <= slots.count (checked above). Nothing escapes.
            tableKeys.withUnsafeMutableBufferPointer { storedKeys in
                tableSlots.withUnsafeMutableBufferPointer { storedSlots in
                    // one part: the same probe without the loops over parts
                    while width == 1 && position < keyCount && made < room {
                        let key = base[position]
                        var index = SlotMap.start(base + position, 1, shift)
                        while true {
                            let slot = storedSlots[index]
                            if slot < 0 {
                                storedSlots[index] = Int32(first + made)
                                storedKeys[index] = key
                                madeKeys.append(key)
                                slots[position] = first + made
                                made += 1
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
                    while position < keyCount && made < room {
                        let parts = base + position * width
                        var index = SlotMap.start(parts, width, shift)
                        probing: while true {
                            let slot = storedSlots[index]
                            if slot < 0 {
                                storedSlots[index] = Int32(first + made)
                                for part in 0..<width {
                                    storedKeys[index * width + part] = parts[part]
                                    madeKeys.append(parts[part])
                                }
                                slots[position] = first + made
                                made += 1
                                break
                            }
                            var equal = true
                            for part in 0..<width where storedKeys[index * width + part] != parts[part] {
                                equal = false
                                break
                            }
                            if equal {
                                slots[position] = Int(slot)
                                break probing
                            }
                            index = (index + 1) & mask
                        }
                        position += 1
                    }
                }
            }
            keys.append(contentsOf: madeKeys)
        }
    }

    /// The slot of one key of `width` parts.
    package mutating func slot(_ parts: [Int64]) -> Int {
        var answer = [0]
        // SAFETY: the buffers are the arrays' own and do not leave the closures.
        parts.withUnsafeBufferPointer { batch in
            answer.withUnsafeMutableBufferPointer { out in slots(batch, into: out) }
        }
        return answer[0]
    }

    /// The slot of a one-part key (in a one-part map), without allocating.
    package mutating func slot(_ key: Int64) -> Int {
        var answer = 0
        // SAFETY: both buffers hold exactly the one element and do not leave the closures.
        withUnsafePointer(to: key) { keyPointer in
            withUnsafeMutablePointer(to: &answer) { answerPointer in
                slots(UnsafeBufferPointer(start: keyPointer, count: 1),
                      into: UnsafeMutableBufferPointer(start: answerPointer, count: 1))
            }
        }
        return answer
    }

    /// Doubles the table and puts every key back.
    private mutating func grow() {
        let size = tableSlots.count * 2
        tableKeys = [Int64](repeating: 0, count: size * width)
        tableSlots = [Int32](repeating: -1, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
        let mask = size - 1
        let width = self.width
        let shift = self.shift
        // SAFETY: as in slots(_:into:); `keys` holds count * width parts.
        keys.withUnsafeBufferPointer { stored in
            guard let base = stored.baseAddress else { return }
            for slot in 0..<(stored.count / width) {
                var index = SlotMap.start(base + slot * width, width, shift)
                while tableSlots[index] >= 0 { index = (index + 1) & mask }
                tableSlots[index] = Int32(slot)
                for part in 0..<width { tableKeys[index * width + part] = base[slot * width + part] }
            }
        }
    }
}
