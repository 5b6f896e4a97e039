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
        case .timeRange(let column, let lower, let upper):
            return try range(column, .time(lower: lower, upper: upper), sel)
        case .timeWindows(let windows):
            return try selectTimeWindows(windows, sel)
        case .numberRange(let column, let lower, let upper):
            return try range(column, .number(lower: lower, upper: upper), sel)
        case .box(let south, let north, let west, let east):
            return try selectBox(south: south, north: north, west: west, east: east, sel)
        case .and(let filters):
            var selection = sel
            let terms: [Filter]
            if case .all = sel { terms = ordered(filters) } else { terms = Self.order(filters) }
            for term in terms {
                selection = try select(term, selection)
                if selection.isEmpty { break }
            }
            return selection
        case .or(let filters):
            var out = Selection.none
            for term in filters {
                out = out.union(try select(term, sel), window: rows)
                if out.count == sel.count { break }
            }
            return out
        case .not(let term):
            let inner = try select(term, sel)
            return sel.intersection(inner.complement(window: rows))
        case .oneOf(let column, _) where column.kind == .category:
            return try categories(f, column, sel)
        case .oneOf(.id, _), .ids:
            return try selectIds(f, sel)
        case .contains(.place, let needle, let insensitive):
            return try selectPlace(f, needle: needle, insensitive: insensitive, sel)
        case .predicate(let predicate):
            return try sel.filter { try predicate.evaluate(quake($0)) }
        case .arithmetic(let comparison):
            return try arithmetic(comparison, sel)
        default:
            return try maskSelect(f, sel)
        }
    }

    /// Rows of `sel` inside the box: the two ranges, the narrower first on a whole window; a box
    /// across the antimeridian (`west > east`) keeps longitudes on either side.
    private func selectBox(south: Double, north: Double, west: Double, east: Double,
                           _ sel: Selection) throws -> Selection {
        let latRange = RangePredicate.number(lower: .init(south), upper: .init(north))
        if west <= east {
            // the narrower side first, when it is the longitude (a box along a parallel)
            let lonRange = RangePredicate.number(lower: .init(west), upper: .init(east))
            if case .all = sel,
               2 * selectivity(.numberRange(.longitude, lower: .init(west), upper: .init(east)))
                < selectivity(.numberRange(.latitude, lower: .init(south), upper: .init(north))) {
                let lonSelection = try range(.longitude, lonRange, sel)
                return lonSelection.isEmpty ? lonSelection : try range(.latitude, latRange, lonSelection)
            }
            let latSelection = try range(.latitude, latRange, sel)
            return latSelection.isEmpty ? latSelection : try range(.longitude, lonRange, latSelection)
        }
        let latSelection = try range(.latitude, latRange, sel)
        if latSelection.isEmpty { return latSelection }
        let longitudes = try doubles(.longitude)
        // SAFETY: selected rows lie below `rows`, the length vector() checked for `longitudes`;
        // `p` stays in the closure.
        return longitudes.withUnsafeBufferPointer { p in
            latSelection.filter { (p[$0] >= west) ||| (p[$0] <= east) }
        }
    }

    /// Rows of `sel` whose place contains `needle`: one verdict per dictionary entry, then the
    /// codes looked up (of the few selected rows, of their stretch, or of the window).
    private func selectPlace(_ f: Filter, needle: String, insensitive: Bool,
                             _ sel: Selection) throws -> Selection {
        let matcher = PlaceMatcher(needle, insensitive: insensitive)
        if matcher.mayTouchPrefix || matcher.needle.isEmpty { return try maskSelect(f, sel) }
        // the needle lies inside the locality: one verdict per dictionary entry, then codes
        let key = (insensitive ? "i|" : "s|") + needle
        let table: [Bool]
        let codes: [UInt32]
        if let cachedTable = try reader.placeTable(block: block, key: key, build: matcher.table) {
            if let narrowed = try selectPlaceOfFewRows(cachedTable, sel) { return narrowed }
            table = cachedTable
            codes = try placeCodes(dictionary: false).1
        } else {
            let (dictionary, windowCodes) = try placeCodes()
            table = matcher.table(dictionary)
            codes = windowCodes
        }
        // SAFETY: selected rows lie below `rows` = codes.count (checked); each code is checked below t.count.
        return codes.withUnsafeBufferPointer { c in
            table.withUnsafeBufferPointer { t in sel.filter { Int(c[$0]) < t.count && t[Int(c[$0])] } }
        }
    }

    /// The place verdicts of a narrowed selection read from only its rows' codes: a few rows one
    /// by one, or a run of rows (a day's) as one stretch; nil when the window's codes are cheaper.
    private func selectPlaceOfFewRows(_ table: [Bool], _ sel: Selection) throws -> Selection? {
        // a few rows left: their codes one by one, not the window's
        if case .rows(let list) = sel, list.count * 32 < rows,
           let few = try reader.placeCodes(block: block, base: window.lowerBound, rows: list) {
            noteRead(.place)
            var out: [UInt32] = []
            for (j, i) in list.enumerated() where Int(few[j]) < table.count && table[Int(few[j])] { out.append(i) }
            return .rows(out)
        }
        // a run of rows (a day's): the codes of that stretch only, not the window's
        if case .rows(let list) = sel, let first = list.first, let last = list.last, last >= first,
           Int(last - first) < rows / 2 {
            let lo = Int(first)
            let hi = Int(last)
            let span = (window.lowerBound + lo)..<(window.lowerBound + hi + 1)
            let part = try reader.placeCodes(block: block, rows: span, dictionary: false).1
            guard part.count == span.count else {
                throw QuakeError.corrupt(reader.path, "place block \(block) decodes to \(part.count) rows")
            }
            noteRead(.place)
            // SAFETY: each kept row lies in lo...hi (checked first), so row - lo indexes `part`;
            // each code is checked below t.count.
            return part.withUnsafeBufferPointer { c in
                table.withUnsafeBufferPointer { tt in
                    sel.filter { i in
                        guard i >= lo, i <= hi else { return false }
                        let code = Int(c[i - lo])
                        return code < tt.count && tt[code]
                    }
                }
            }
        }
        return nil
    }

    /// The per-row mask of `f`, kept where `sel` is.
    private func maskSelect(_ f: Filter, _ sel: Selection) throws -> Selection {
        let flags = try mask(f)
        // SAFETY: selected rows lie below `rows` = flags.count (one flag a row); `p` stays in the closure.
        return flags.withUnsafeBufferPointer { p in sel.filter { p[$0] } }
    }

    /// Cheap kernels first, row-by-row predicates last.
    package static func order(_ fs: [Filter]) -> [Filter] {
        func cost(_ f: Filter) -> Int {
            switch f {
            case .timeRange, .numberRange, .timeWindows: return 0
            case .box: return 1
            case .arithmetic: return 2
            // on packed codes, as cheap as a range: ordered among them by selectivity
            case .oneOf(let column, _) where column.kind == .category: return 0
            case .isNull: return 3
            case .predicate: return 9
            case .and(let terms), .or(let terms): return 4 + (terms.map(cost).max() ?? 0)
            case .not(let term): return cost(term)
            default: return 5
            }
        }
        return fs.enumerated()
            .sorted { (cost($0.element), $0.offset) < (cost($1.element), $1.offset) }
            .map(\.element)
    }

    /// Rows of `sel` whose value of `c` lies in `r`: on encoded values over the whole window,
    /// or on the decoded column for a narrowed selection.
    private func range(_ c: Column, _ r: RangePredicate, _ sel: Selection) throws -> Selection {
        if c == .time, case .time(let lower, let upper) = r, case .all(let count) = sel {
            return try timeRun(lower, upper, count)
        }
        if case .all(let count) = sel, !isDecoded(c) {
            if let hits = try reader.select(c, block: block, rows: window, r) {
                if hits.count == count { return sel }
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
        case .time(let lowerBound, let upperBound):
            let values = try ints(c)
            let lower = lowerBound ?? Int64.min
            let upper = upperBound ?? Int64.max
            // SAFETY: selected rows lie below `rows`, the length vector() checked for `values`;
            // `p` stays in the closure.
            return values.withUnsafeBufferPointer { p in
                sel.filter { (p[$0] != RowBatch.null) &&& (p[$0] >= lower) &&& (p[$0] < upper) }
            }
        case .number(let lowerBound, let upperBound):
            let values = try doubles(c)
            let lower = lowerBound?.value ?? -.infinity
            let upper = upperBound?.value ?? .infinity
            let lowerInclusive = lowerBound?.inclusive ?? true
            let upperInclusive = upperBound?.inclusive ?? true
            // NaN (null) fails every comparison, as it should
            // SAFETY: selected rows lie below `rows`, the length vector() checked for `values`;
            // `p` stays in the closure.
            return values.withUnsafeBufferPointer { p in
                switch (lowerInclusive, upperInclusive) {
                case (true, true): return sel.filter { (p[$0] >= lower) &&& (p[$0] <= upper) }
                case (true, false): return sel.filter { (p[$0] >= lower) &&& (p[$0] < upper) }
                case (false, true): return sel.filter { (p[$0] > lower) &&& (p[$0] <= upper) }
                case (false, false): return sel.filter { (p[$0] > lower) &&& (p[$0] < upper) }
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
        let times = try ints(.time)
        guard times.count == n else { throw QuakeError.corrupt(reader.path, "time column block \(block)") }
        // null (Int64.min) sorts first and lies in no range
        let lower = Swift.max(lo ?? Int64.min, Int64.min + 1)
        let upper = hi ?? Int64.max
        guard lower < upper else { return .none }
        let first = BlockData.firstNotBelow(times, lower)
        let end = BlockData.firstNotBelow(times, upper)
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
                let among = base == 0 ? list : list.map { $0 + base }
                hits = try reader.select(c, block: block, rows: window, among: among, oneOf: wanted)
            }
            if let hits {
                noteRead(c)
                if case .all(let count) = sel, hits.count == count { return sel }
                return .rows(base == 0 ? hits : hits.map { $0 - base })
            }
        }
        let categoryColumn = try category(c)
        let dictionary = categoryColumn.dictionary
        var table = [Bool](repeating: false, count: dictionary.count + 1)
        let wanted = Set(values.map { Array($0.utf8) })
        for k in 0..<dictionary.count where wanted.contains(Array(dictionary.bytes[dictionary.range(k)])) {
            table[k + 1] = true
        }
        // SAFETY: selected rows lie below `rows` = codes.count (checked); each code is checked below t.count.
        return categoryColumn.codes.withUnsafeBufferPointer { codes in
            table.withUnsafeBufferPointer { t in sel.filter { Int(codes[$0]) < t.count && t[Int(codes[$0])] } }
        }
    }
}
