import QuakeFormat
/// Filter evaluation as selection narrowing: each kernel takes the rows still selected and
/// keeps those that pass. Ranges on a fully selected window run on the encoded values (packed
/// integers compared against bounds translated once); on a narrowed selection they check only
/// its rows. Terms with no kernel of their own fall back to the per-row masks.
extension BlockData {
    package func select(_ f: Filter, _ sel: Selection) throws -> Selection {
        if sel.isEmpty { return sel }
        switch f {
        case .all: return sel
        case .none: return .none
        case .timeRange(let c, let lo, let hi):
            return try range(c, .time(lower: lo, upper: hi), sel)
        case .numberRange(let c, let lo, let hi):
            return try range(c, .number(lower: lo, upper: hi), sel)
        case .box(let a, let b, let c, let d):
            let latRange = RangePredicate.number(lower: .init(a), upper: .init(b))
            if c <= d {
                // the narrower side first, when it is the longitude (a box along a parallel)
                let lonRange = RangePredicate.number(lower: .init(c), upper: .init(d))
                if case .all = sel, 2 * selectivity(.numberRange(.longitude, lower: .init(c), upper: .init(d)))
                    < selectivity(.numberRange(.latitude, lower: .init(a), upper: .init(b))) {
                    let lon = try range(.longitude, lonRange, sel)
                    return lon.isEmpty ? lon : try range(.latitude, latRange, lon)
                }
                let lat = try range(.latitude, latRange, sel)
                return lat.isEmpty ? lat : try range(.longitude, lonRange, lat)
            }
            let lat = try range(.latitude, latRange, sel)
            if lat.isEmpty { return lat }
            let lon = try doubles(.longitude)
            // SAFETY: selected rows lie below `rows`, the length vector() checked for `lon`; `p` stays in the closure.
            return lon.withUnsafeBufferPointer { p in lat.filter { (p[$0] >= c) ||| (p[$0] <= d) } }
        case .and(let fs):
            var s = sel
            let terms: [Filter]
            if case .all = sel { terms = ordered(fs) } else { terms = Self.order(fs) }
            for g in terms {
                s = try select(g, s)
                if s.isEmpty { break }
            }
            return s
        case .or(let fs):
            var out = Selection.none
            for g in fs {
                out = out.union(try select(g, sel), window: rows)
                if out.count == sel.count { break }
            }
            return out
        case .not(let g):
            let inner = try select(g, sel)
            return sel.intersection(inner.complement(window: rows))
        case .oneOf(let c, _) where c.kind == .category:
            return try categories(f, c, sel)
        case .contains(.place, let needle, let insensitive):
            let m = PlaceMatcher(needle, insensitive: insensitive)
            if m.mayTouchPrefix || m.needle.isEmpty { return try maskSelect(f, sel) }
            // the needle lies inside the locality: one verdict per dictionary entry, then codes
            let key = (insensitive ? "i|" : "s|") + needle
            let table: [Bool]
            let codes: [UInt32]
            if let t = try reader.placeTable(block: block, key: key, build: m.table) {
                // a few rows left: their codes one by one, not the window's
                if case .rows(let r) = sel, r.count * 32 < rows,
                   let few = try reader.placeCodes(block: block, base: window.lowerBound, rows: r) {
                    noteRead(.place)
                    var out: [UInt32] = []
                    for (j, i) in r.enumerated() where Int(few[j]) < t.count && t[Int(few[j])] { out.append(i) }
                    return .rows(out)
                }
                // a run of rows (a day's): the codes of that stretch only, not the window's
                if case .rows(let r) = sel, let first = r.first, let last = r.last, last >= first,
                   Int(last - first) < rows / 2 {
                    let lo = Int(first), hi = Int(last)
                    let span = (window.lowerBound + lo)..<(window.lowerBound + hi + 1)
                    let part = try reader.placeCodes(block: block, rows: span, dictionary: false).1
                    guard part.count == span.count else {
                        throw QuakeError.corrupt(reader.path, "place block \(block) decodes to \(part.count) rows")
                    }
                    noteRead(.place)
                    // SAFETY: each kept row lies in lo...hi (checked first), so row - lo indexes `part`;
                    // each code is checked below t.count.
                    return part.withUnsafeBufferPointer { c in
                        t.withUnsafeBufferPointer { tt in
                            sel.filter { i in
                                guard i >= lo, i <= hi else { return false }
                                let code = Int(c[i - lo])
                                return code < tt.count && tt[code]
                            }
                        }
                    }
                }
                table = t
                codes = try placeCodes(dictionary: false).1
            } else {
                let (dict, c) = try placeCodes()
                table = m.table(dict)
                codes = c
            }
            // SAFETY: selected rows lie below `rows` = codes.count (checked); each code is checked below t.count.
            return codes.withUnsafeBufferPointer { c in
                table.withUnsafeBufferPointer { t in sel.filter { Int(c[$0]) < t.count && t[Int(c[$0])] } }
            }
        case .predicate(let p):
            return try sel.filter { try p.evaluate(quake($0)) }
        case .arithmetic(let comparison):
            return try arithmetic(comparison, sel)
        default:
            return try maskSelect(f, sel)
        }
    }

    /// The per-row mask of `f`, kept where `sel` is.
    private func maskSelect(_ f: Filter, _ sel: Selection) throws -> Selection {
        let m = try mask(f)
        // SAFETY: selected rows lie below `rows` = m.count (one flag a row); `p` stays in the closure.
        return m.withUnsafeBufferPointer { p in sel.filter { p[$0] } }
    }

    /// Cheap kernels first, row-by-row predicates last.
    package static func order(_ fs: [Filter]) -> [Filter] {
        func cost(_ f: Filter) -> Int {
            switch f {
            case .timeRange, .numberRange: return 0
            case .box: return 1
            case .arithmetic: return 2
            // on packed codes, as cheap as a range: ordered among them by selectivity
            case .oneOf(let c, _) where c.kind == .category: return 0
            case .isNull: return 3
            case .predicate: return 9
            case .and(let gs), .or(let gs): return 4 + (gs.map(cost).max() ?? 0)
            case .not(let g): return cost(g)
            default: return 5
            }
        }
        return fs.enumerated().sorted { (cost($0.element), $0.offset) < (cost($1.element), $1.offset) }.map(\.element)
    }

    /// Rows of `sel` whose value of `c` lies in `r`: on encoded values over the whole window,
    /// or on the decoded column for a narrowed selection.
    private func range(_ c: Column, _ r: RangePredicate, _ sel: Selection) throws -> Selection {
        if c == .time, case .time(let lo, let hi) = r, case .all(let n) = sel { return try timeRun(lo, hi, n) }
        if case .all(let n) = sel, !isDecoded(c) {
            if let hits = try reader.select(c, block: block, rows: window, r) {
                if hits.count == n { return sel }
                let base = UInt32(window.lowerBound)
                return .rows(base == 0 ? hits : hits.map { $0 - base })
            }
        }
        // a narrowed selection: each selected row compared on its packed value, never converted
        // to Double, and the rest of the window never unpacked
        if case .rows(let list) = sel, !isDecoded(c), case .number = r {
            let base = UInt32(window.lowerBound)
            if let hits = try reader.select(c, block: block, among: base == 0 ? list : list.map { $0 + base }, r) {
                return .rows(base == 0 ? hits : hits.map { $0 - base })
            }
        }
        switch r {
        case .time(let lo, let hi):
            let v = try ints(c)
            let l = lo ?? Int64.min, h = hi ?? Int64.max
            // SAFETY: selected rows lie below `rows`, the length vector() checked for `v`; `p` stays in the closure.
            return v.withUnsafeBufferPointer { p in
                sel.filter { (p[$0] != RowBatch.null) &&& (p[$0] >= l) &&& (p[$0] < h) }
            }
        case .number(let lo, let hi):
            let v = try doubles(c)
            let l = lo?.value ?? -.infinity, h = hi?.value ?? .infinity
            let li = lo?.inclusive ?? true, hiIncl = hi?.inclusive ?? true
            // NaN (null) fails every comparison, as it should
            // SAFETY: selected rows lie below `rows`, the length vector() checked for `v`; `p` stays in the closure.
            return v.withUnsafeBufferPointer { p in
                switch (li, hiIncl) {
                case (true, true): return sel.filter { (p[$0] >= l) &&& (p[$0] <= h) }
                case (true, false): return sel.filter { (p[$0] >= l) &&& (p[$0] < h) }
                case (false, true): return sel.filter { (p[$0] > l) &&& (p[$0] <= h) }
                case (false, false): return sel.filter { (p[$0] > l) &&& (p[$0] < h) }
                }
            }
        }
    }

    /// The rows of the window whose time lies in `lo..<hi`. A partition stores its rows in (time,
    /// id) order (`verify` checks it), so they are one run, found by two binary searches on the
    /// decoded times. The times stay decoded for what reads them next: ordering a day by time, or
    /// the page.
    /// - Complexity: O(window) to decode the times, O(log window) to find the run.
    private func timeRun(_ lo: Int64?, _ hi: Int64?, _ n: Int) throws -> Selection {
        // from the chunk's miniblock headers, when the time column is not decoded already
        if !isDecoded(.time), let run = try reader.timeRun(block: block, rows: window, lo, hi) {
            guard window.lowerBound <= run.lowerBound, run.upperBound <= window.upperBound else {
                throw QuakeError.corrupt(reader.path, "time column block \(block)")
            }
            if run == window { return .all(n) }
            let base = window.lowerBound
            return run.isEmpty ? .none : .rows(run.map { UInt32(truncatingIfNeeded: $0 - base) })
        }
        let v = try ints(.time)
        guard v.count == n else { throw QuakeError.corrupt(reader.path, "time column block \(block)") }
        // null (Int64.min) sorts first and lies in no range
        let l = Swift.max(lo ?? Int64.min, Int64.min + 1), h = hi ?? Int64.max
        guard l < h else { return .none }
        func firstNotBelow(_ x: Int64) -> Int {
            var a = 0, b = v.count
            while a < b {
                let m = (a + b) / 2
                if v[m] < x { a = m + 1 } else { b = m }
            }
            return a
        }
        let first = firstNotBelow(l), end = firstNotBelow(h)
        if first == 0 && end == n { return .all(n) }
        return first < end ? .rows((first..<end).map { UInt32(truncatingIfNeeded: $0) }) : .none
    }

    /// `oneOf` on a category column: the wanted values become a table over the dictionary
    /// codes once, then codes are looked up.
    private func categories(_ f: Filter, _ c: Column, _ sel: Selection) throws -> Selection {
        guard case .oneOf(_, let values) = f else { return sel }
        if !isDecoded(c) {
            // on the packed codes: the window's rows, or only the selected ones
            let wanted = Set(values.map { Array($0.utf8) })
            let base = UInt32(window.lowerBound)
            var hits: [UInt32]?
            switch sel {
            case .all:
                hits = try reader.select(c, block: block, rows: window, oneOf: wanted)
            case .rows(let list):
                hits = try reader.select(c, block: block, rows: window, among: base == 0 ? list : list.map { $0 + base },
                                         oneOf: wanted)
            }
            if let hits {
                noteRead(c)
                if case .all(let n) = sel, hits.count == n { return sel }
                return .rows(base == 0 ? hits : hits.map { $0 - base })
            }
        }
        let b = try category(c)
        var table = [Bool](repeating: false, count: b.dictionary.count + 1)
        let wanted = Set(values.map { Array($0.utf8) })
        for k in 0..<b.dictionary.count where wanted.contains(Array(b.dictionary.bytes[b.dictionary.range(k)])) {
            table[k + 1] = true
        }
        // SAFETY: selected rows lie below `rows` = codes.count (checked); each code is checked below t.count.
        return b.codes.withUnsafeBufferPointer { codes in
            table.withUnsafeBufferPointer { t in sel.filter { Int(codes[$0]) < t.count && t[Int(codes[$0])] } }
        }
    }
}
