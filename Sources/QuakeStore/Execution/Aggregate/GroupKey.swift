/// The key of one group of an aggregate: one 64-bit part per group key, up to eight (unused
/// parts are 0). A single key hashes one part.
package struct GroupKey: Hashable {
    package static let capacity = 8
    private var part0: Int64 = 0
    private var part1: Int64 = 0
    private var part2: Int64 = 0
    private var part3: Int64 = 0
    private var part4: Int64 = 0
    private var part5: Int64 = 0
    private var part6: Int64 = 0
    private var part7: Int64 = 0

    package init() {}

    package subscript(position: Int) -> Int64 {
        get {
            switch position {
            case 0: return part0
            case 1: return part1
            case 2: return part2
            case 3: return part3
            case 4: return part4
            case 5: return part5
            case 6: return part6
            default: return part7
            }
        }
        set {
            switch position {
            case 0: part0 = newValue
            case 1: part1 = newValue
            case 2: part2 = newValue
            case 3: part3 = newValue
            case 4: part4 = newValue
            case 5: part5 = newValue
            case 6: part6 = newValue
            default: part7 = newValue
            }
        }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(part0)
        let rest = part1 | part2 | part3 | part4 | part5 | part6 | part7
        if rest != 0 {
            hasher.combine(part1)
            hasher.combine(part2)
            hasher.combine(part3)
            hasher.combine(part4)
            hasher.combine(part5)
            hasher.combine(part6)
            hasher.combine(part7)
        }
    }
}
