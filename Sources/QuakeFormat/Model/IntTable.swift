/// An open-addressing map from 64-bit keys to `Int` values, over two plain arrays.
///
/// Not generic on purpose: a one-shot query pays, for each hashed type (a `Set` or `Dictionary`
/// of a new key type) it instantiates for the first time, a scan of every protocol conformance
/// in the binary (8,000 records, 40-70 µs). This table has fixed types, so it costs nothing at
/// first use. Keys may repeat (a hash of a name, say): ``first(_:where:)`` visits each value
/// stored under a key until the caller's check accepts one.
package struct IntTable: Sendable {
    private var keys: [UInt64]
    private var values: [Int]
    /// Slots in use; `values[i] == Int.min` marks an empty slot.
    package private(set) var count = 0

    /// A table that holds `capacity` entries before it grows.
    package init(capacity: Int = 8) {
        var size = 16
        while size < 2 * capacity { size *= 2 }
        keys = Array(repeating: 0, count: size)
        values = Array(repeating: Int.min, count: size)
    }

    @inline(__always) private static func slot(_ key: UInt64, _ mask: Int) -> Int {
        // Fibonacci hashing: the high bits of the product spread keys that differ in low bits
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// The value stored under `key` (the first, when several are).
    /// - Complexity: O(1) expected.
    package func value(_ key: UInt64) -> Int? { first(key) { _ in true } }

    /// The first value stored under `key` that `accept` takes.
    /// - Complexity: O(1) expected, plus one call of `accept` per value stored under `key`.
    package func first(_ key: UInt64, where accept: (Int) throws -> Bool) rethrows -> Int? {
        let mask = keys.count - 1
        var slot = IntTable.slot(key, mask)
        while values[slot] != Int.min {
            if keys[slot] == key, try accept(values[slot]) { return values[slot] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Replaces the first value under `key` that `matches` takes with `value`, or adds `value`
    /// under `key` when none does. `value` must not be `Int.min`.
    /// - Complexity: O(1) amortized.
    package mutating func set(_ key: UInt64, _ value: Int, where matches: (Int) -> Bool = { _ in true }) {
        precondition(value != Int.min, "IntTable: Int.min marks an empty slot")
        let mask = keys.count - 1
        var slot = IntTable.slot(key, mask)
        while values[slot] != Int.min {
            if keys[slot] == key, matches(values[slot]) {
                values[slot] = value
                return
            }
            slot = (slot + 1) & mask
        }
        keys[slot] = key
        values[slot] = value
        count += 1
        if 2 * count > keys.count { grow() }
    }

    /// Adds `value` under `key`, beside any values already there.
    package mutating func add(_ key: UInt64, _ value: Int) { set(key, value) { _ in false } }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = Array(repeating: 0, count: 2 * oldKeys.count)
        values = Array(repeating: Int.min, count: 2 * oldKeys.count)
        count = 0
        for i in oldKeys.indices where oldValues[i] != Int.min { add(oldKeys[i], oldValues[i]) }
    }
}
