/// What a block's zone maps say about a filter: no row can match, every row matches, or
/// the rows must be read.
enum ZoneVerdict: Equatable {
    case none, all, some

    static func and(_ a: ZoneVerdict, _ b: ZoneVerdict) -> ZoneVerdict {
        if a == .none || b == .none { return .none }
        if a == .all && b == .all { return .all }
        return .some
    }

    static func or(_ a: ZoneVerdict, _ b: ZoneVerdict) -> ZoneVerdict {
        if a == .all || b == .all { return .all }
        if a == .none && b == .none { return .none }
        return .some
    }
}

extension PartitionReader {
    /// Decides `f` for block `k` from zone maps alone, without decoding.
    func verdict(_ f: Filter, block k: Int) throws -> ZoneVerdict {
        switch f {
        case .all: return .all
        case .none: return .none
        case .timeRange(let c, let lo, let hi):
            let b = try blocks(c)[k]
            if b.nulls == b.rows { return .none }
            let l = lo ?? Int64.min, h = hi ?? Int64.max
            if b.max < l || b.min >= h { return .none }
            if b.nulls == 0 && b.min >= l && b.max < h { return .all }
            return .some
        case .numberRange(let c, let lo, let hi):
            let b = try blocks(c)[k]
            if b.nulls == b.rows { return .none }
            let mn = b.minDouble, mx = b.maxDouble
            if let lo { if lo.inclusive ? mx < lo.value : mx <= lo.value { return .none } }
            if let hi { if hi.inclusive ? mn > hi.value : mn >= hi.value { return .none } }
            var all = b.nulls == 0
            if let lo, all { all = lo.inclusive ? mn >= lo.value : mn > lo.value }
            if let hi, all { all = hi.inclusive ? mx <= hi.value : mx < hi.value }
            return all ? .all : .some
        case .box(let a, let b2, let c, let d):
            let lat = try verdict(.numberRange(.latitude, lower: .init(a), upper: .init(b2)), block: k)
            if c <= d { return ZoneVerdict.and(lat, try verdict(.numberRange(.longitude, lower: .init(c), upper: .init(d)), block: k)) }
            return lat == .none ? .none : .some
        case .isNull(let c):
            let b = try blocks(c)[k]
            return b.nulls == 0 ? .none : b.nulls == b.rows ? .all : .some
        case .and(let fs):
            var v = ZoneVerdict.all
            for g in fs {
                v = ZoneVerdict.and(v, try verdict(g, block: k))
                if v == .none { return .none }
            }
            return v
        case .or(let fs):
            var v = ZoneVerdict.none
            for g in fs {
                v = ZoneVerdict.or(v, try verdict(g, block: k))
                if v == .all { return .all }
            }
            return v
        case .not(let g):
            switch try verdict(g, block: k) {
            case .all: return .none
            case .none: return .all
            case .some: return .some
            }
        default:
            return .some
        }
    }
}
