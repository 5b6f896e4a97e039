/// The distinct magnitudes of a partition and their codes, in an open-addressing table keyed by
/// a value's bit pattern. A `Set` and a `Dictionary` hashed each row with SipHash: building a
/// partition's histogram was 3 % of a commit of 1,000 events in one month.
struct MagnitudeTable {
    /// The bit patterns held, in slots; `codes` says which slots hold one.
    private var slots: [UInt64]
    /// Per slot, -1 when empty, else the value's code (its index once ``assignCodes()`` ran,
    /// until then 0).
    private var codes: [Int32]
    private var shift: UInt64
    /// The bit patterns held, in the order they came.
    private(set) var keys: [UInt64] = []

    init() {
        slots = [UInt64](repeating: 0, count: 64)
        codes = [Int32](repeating: -1, count: 64)
        shift = 64 - 6
    }

    /// The table of `values`' codes, each the value's index in `values`.
    init(codes values: [Double]) {
        self.init()
        for (index, value) in values.enumerated() {
            insert(value.bitPattern)
            set(value.bitPattern, code: Int32(index))
        }
    }

    /// The key of a stored magnitude: its double's bit pattern, -0 as +0.
    @inline(__always)
    static func key(_ mag: Int64) -> UInt64 { (ScaledDecimal.double(mag) + 0.0).bitPattern }

    @inline(__always)
    private func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// Adds `key` unless held.
    mutating func insert(_ key: UInt64) {
        var slot = home(key)
        let mask = slots.count - 1
        while codes[slot] >= 0 {
            if slots[slot] == key { return }
            slot = (slot + 1) & mask
        }
        slots[slot] = key
        codes[slot] = 0
        keys.append(key)
        // at most half full, so that a probe stays short and ends at an empty slot
        if keys.count * 2 > slots.count { grow() }
    }

    /// The code of `key`; nil when it is not held.
    @inline(__always)
    func code(_ key: UInt64) -> Int32? {
        var slot = home(key)
        let mask = slots.count - 1
        while codes[slot] >= 0 {
            if slots[slot] == key { return codes[slot] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Gives held `key` the code `code`.
    private mutating func set(_ key: UInt64, code: Int32) {
        var slot = home(key)
        let mask = slots.count - 1
        while codes[slot] >= 0 {
            if slots[slot] == key {
                codes[slot] = code
                return
            }
            slot = (slot + 1) & mask
        }
    }

    /// Twice the slots, every held key moved with its code.
    private mutating func grow() {
        let oldSlots = slots
        let oldCodes = codes
        slots = [UInt64](repeating: 0, count: oldSlots.count * 2)
        codes = [Int32](repeating: -1, count: slots.count)
        shift -= 1
        let mask = slots.count - 1
        for index in oldSlots.indices where oldCodes[index] >= 0 {
            var slot = home(oldSlots[index])
            while codes[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = oldSlots[index]
            codes[slot] = oldCodes[index]
        }
    }

    /// The held values in ascending order, each key's code set to its index there.
    mutating func assignCodes() -> [Double] {
        let values = keys.map { Double(bitPattern: $0) }.sorted()
        for (index, value) in values.enumerated() { set(value.bitPattern, code: Int32(index)) }
        return values
    }
}
