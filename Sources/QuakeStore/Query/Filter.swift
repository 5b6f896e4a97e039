import Foundation
import QuakeFormat

/// The one filter IR every front end compiles to: CLI flags, `--where` text and Foundation
/// `Predicate<Quake>`. Recognised shapes run as column kernels; `.predicate` is the exact
/// row-by-row slow path for anything else.
package indirect enum Filter: Sendable, CustomStringConvertible {
    case all
    case none
    /// `lower <= value < upper` on a timestamp column (epoch ms; nil is unbounded). Null fails.
    case timeRange(Column, lower: Int64?, upper: Int64?)
    /// A numeric range on a decimal column. Null fails.
    case numberRange(Column, lower: Bound?, upper: Bound?)
    /// Latitude/longitude box; `minLongitude > maxLongitude` crosses the antimeridian.
    case box(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double)
    /// Great-circle distance from a point, in km.
    case near(latitude: Double, longitude: Double, radiusKm: Double)
    /// The string column equals one of the values.
    case oneOf(Column, [String])
    /// Substring match on a string column: case-sensitive, or case- and diacritic-insensitive.
    case contains(Column, String, insensitive: Bool)
    /// The column is null (empty).
    case isNull(Column)
    /// Arithmetic over numeric fields compared (`mag - depth > 5`). An empty side fails.
    case arithmetic(ArithmeticComparison)
    /// The event id is in the set (used by `--changed-since`).
    case ids(EventIdSet)
    case and([Filter])
    case or([Filter])
    case not(Filter)
    /// Rows after a keyset cursor, in the query's sort order.
    case after(Cursor)
    /// A Foundation predicate (or part of one) evaluated row by row.
    case predicate(RowPredicate)

    /// One end of a numeric range (defined beside the codecs that compare against it).
    package typealias Bound = RangeBound

    package var description: String {
        switch self {
        case .all: return "true"
        case .none: return "false"
        case .timeRange(let c, let lo, let hi):
            return [lo.map { "\(c) >= \(Timestamp.string($0))" }, hi.map { "\(c) < \(Timestamp.string($0))" }].compactMap { $0 }.joined(separator: " && ")
        case .numberRange(let c, let lo, let hi):
            let l = lo.map { "\(c) \($0.inclusive ? ">=" : ">") \($0.value)" }
            let h = hi.map { "\(c) \($0.inclusive ? "<=" : "<") \($0.value)" }
            return [l, h].compactMap { $0 }.joined(separator: " && ")
        case .box(let a, let b, let c, let d): return "box(lat \(a)...\(b), lon \(c)...\(d))"
        case .near(let a, let b, let r): return "distance(\(a), \(b)) <= \(r) km"
        case .oneOf(let c, let v) where v.count == 1: return "\(c) == \"\(v[0])\""
        case .oneOf(let c, let v) where v.count > 8:
            // a long list (`--id` with 1,000 ids) is named by its first values and its length
            return "\(c) in \(Array(v.prefix(8)).description.dropLast()), ...] (\(v.count) values)"
        case .oneOf(let c, let v): return "\(c) in \(v)"
        case .contains(let c, let s, let i): return i ? "\(c).localizedStandardContains(\"\(s)\")" : "\(c).contains(\"\(s)\")"
        case .isNull(let c): return "\(c) == nil"
        case .arithmetic(let comparison): return comparison.description
        case .ids(let set): return "id in {\(set)}"
        case .and(let f): return "(" + f.map(\.description).joined(separator: " && ") + ")"
        case .or(let f): return "(" + f.map(\.description).joined(separator: " || ") + ")"
        case .not(let f): return "!\(f)"
        case .after(let c): return "after cursor \(c.values)"
        case .predicate(let p): return "predicate{\(p.label)}"
        }
    }

    /// Leaves out tombstones: events whose status is `deleted`, which every answer hides by
    /// default, as USGS does. Front ends add it unless asked to include deleted events.
    package static let notDeleted: Filter = .not(.oneOf(.status, ["deleted"]))
    /// Only the tombstones (FDSN `includedeleted=only`).
    package static let onlyDeleted: Filter = .oneOf(.status, ["deleted"])

    /// What to do with tombstones, as the FDSN `includedeleted` parameter says.
    package enum Tombstones: Sendable, Equatable {
        case hidden, included, only

        /// The filter part that says it.
        package var filter: Filter {
            switch self {
            case .hidden: return Filter.notDeleted
            case .included: return .all
            case .only: return Filter.onlyDeleted
            }
        }
    }

    /// Whether this is ``notDeleted``.
    package var isTombstoneCheck: Bool {
        if case .not(.oneOf(.status, let v)) = self, v == ["deleted"] { return true }
        return false
    }

    /// The filter without its top-level ``notDeleted`` terms, for a snapshot without tombstones.
    package var droppingTombstoneCheck: Filter {
        if isTombstoneCheck { return .all }
        guard case .and(let parts) = self, parts.contains(where: \.isTombstoneCheck) else { return self }
        return .conjunction(parts.filter { !$0.isTombstoneCheck })
    }

    /// Conjunction that drops `.all` and collapses on `.none`.
    package static func conjunction(_ parts: [Filter]) -> Filter {
        var out: [Filter] = []
        for p in parts {
            switch p {
            case .all: continue
            case .none: return .none
            case .and(let inner): out.append(contentsOf: inner)
            default: out.append(p)
            }
        }
        return out.isEmpty ? .all : out.count == 1 ? out[0] : .and(out)
    }

    /// The time window every matching row lies in, for partition pruning.
    package var timeBounds: (lower: Int64?, upper: Int64?) {
        switch self {
        case .none: return (0, 0)
        case .timeRange(.time, let lo, let hi): return (lo, hi)
        case .and(let fs):
            var lo: Int64?, hi: Int64?
            for f in fs {
                let b = f.timeBounds
                if let l = b.lower { lo = max(lo ?? l, l) }
                if let h = b.upper { hi = min(hi ?? h, h) }
            }
            return (lo, hi)
        case .or(let fs):
            var lo: Int64? = Int64.max, hi: Int64? = Int64.min
            for f in fs {
                let b = f.timeBounds
                guard let l = b.lower, let h = b.upper else { return (nil, nil) }
                lo = min(lo!, l); hi = max(hi!, h)
            }
            return fs.isEmpty ? (nil, nil) : (lo, hi)
        default: return (nil, nil)
        }
    }

    /// True when the filter has a slow-path part.
    package var usesSlowPath: Bool {
        switch self {
        case .predicate: return true
        case .and(let f), .or(let f): return f.contains { $0.usesSlowPath }
        case .not(let f): return f.usesSlowPath
        default: return false
        }
    }

    /// Columns the filter reads.
    package var columns: ColumnSet {
        switch self {
        case .all, .none: return []
        case .timeRange(let c, _, _), .numberRange(let c, _, _), .oneOf(let c, _), .contains(let c, _, _), .isNull(let c): return [c]
        case .box, .near: return [.latitude, .longitude]
        case .arithmetic(let comparison): return comparison.columns
        case .ids: return [.id]
        case .and(let f), .or(let f): return f.reduce(into: ColumnSet()) { $0.formUnion($1.columns) }
        case .not(let f): return f.columns
        case .after(let c): return ColumnSet(c.sort.map(\.column)).union([.id])
        case .predicate: return .all
        }
    }
}

/// A predicate over one event, evaluated exactly, row by row.
// @unchecked: `body` is a pure function of the event it is given, called from the scan threads
// at once; it captures only immutable values (a Foundation `Predicate` or one of its expressions,
// a LIKE pattern and the `AnyKeyPath` of the column it reads, in WhereParser). Those key paths are
// not Sendable types, so the closure cannot be declared `@Sendable`.
package struct RowPredicate: @unchecked Sendable {
    package let label: String
    private let body: (Quake) throws -> Bool

    package init(label: String, _ evaluate: @escaping (Quake) throws -> Bool) {
        self.label = label
        self.body = evaluate
    }

    /// Foundation's answer for `q`; what Foundation throws (a force-unwrap of nil) is a
    /// ``QuakeError/Kind/predicateFailed`` naming the event.
    package func evaluate(_ q: Quake) throws(QuakeError) -> Bool {
        do {
            return try body(q)
        } catch let e as QuakeError {
            throw e
        } catch {
            throw QuakeError(.predicateFailed, detail: "event \(q.id): \(error)")
        }
    }
}
