import QuakeFormat
import QuakeStore
import QuakeInterchange
/// A small, fast, seedable PRNG (SplitMix64) so generated archives are reproducible.
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// Uniform in [0, 1).
    package mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Roughly normal (sum of uniforms), mean 0, standard deviation 1.
    package mutating func normal() -> Double { (unit() + unit() + unit() + unit() - 2) * 1.7320508 }

    package mutating func pick<T>(_ a: [T]) -> T { a[Int(next() % UInt64(a.count))] }
}
