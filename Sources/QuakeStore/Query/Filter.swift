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
    /// `time` lies in one of the spans: where the id index places the ids a filter requires
    /// (added by the executor beside them, never by a front end).
    case timeWindows(TimeWindows)
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
        case .timeRange(let column, let lo, let hi):
            let lower = lo.map { "\(column) >= \(Timestamp.string($0))" }
            let upper = hi.map { "\(column) < \(Timestamp.string($0))" }
            return [lower, upper].compactMap { $0 }.joined(separator: " && ")
        case .numberRange(let column, let lo, let hi):
            let lower = lo.map { "\(column) \($0.inclusive ? ">=" : ">") \($0.value)" }
            let upper = hi.map { "\(column) \($0.inclusive ? "<=" : "<") \($0.value)" }
            return [lower, upper].compactMap { $0 }.joined(separator: " && ")
        case .box(let south, let north, let west, let east):
            return "box(lat \(south)...\(north), lon \(west)...\(east))"
        case .near(let latitude, let longitude, let radius):
            return "distance(\(latitude), \(longitude)) <= \(radius) km"
        case .oneOf(let column, let values) where values.count == 1: return "\(column) == \"\(values[0])\""
        case .oneOf(let column, let values) where values.count > 8:
            // a long list (`--id` with 1,000 ids) is named by its first values and its length
            return "\(column) in \(Array(values.prefix(8)).description.dropLast()), ...] (\(values.count) values)"
        case .oneOf(let column, let values): return "\(column) in \(values)"
        case .contains(let column, let needle, let insensitive):
            return insensitive ? "\(column).localizedStandardContains(\"\(needle)\")"
                : "\(column).contains(\"\(needle)\")"
        case .isNull(let column): return "\(column) == nil"
        case .arithmetic(let comparison): return comparison.description
        case .ids(let set): return "id in {\(set)}"
        case .timeWindows(let windows): return "time in \(windows.spans.count) id-index windows"
        case .and(let terms): return "(" + terms.map(\.description).joined(separator: " && ") + ")"
        case .or(let terms): return "(" + terms.map(\.description).joined(separator: " || ") + ")"
        case .not(let term): return "!\(term)"
        case .after(let cursor): return "after cursor \(cursor.values)"
        case .predicate(let predicate): return "predicate{\(predicate.label)}"
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
        if case .not(.oneOf(.status, let values)) = self, values == ["deleted"] { return true }
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
        for part in parts {
            switch part {
            case .all: continue
            case .none: return .none
            case .and(let inner): out.append(contentsOf: inner)
            default: out.append(part)
            }
        }
        return out.isEmpty ? .all : out.count == 1 ? out[0] : .and(out)
    }

    /// The time window every matching row lies in, for partition pruning.
    package var timeBounds: (lower: Int64?, upper: Int64?) {
        switch self {
        case .none: return (0, 0)
        case .timeRange(.time, let lo, let hi): return (lo, hi)
        case .timeWindows(let windows): return windows.bounds.map { ($0.lowerBound, $0.upperBound) } ?? (0, 0)
        case .and(let terms):
            var lo: Int64?
            var hi: Int64?
            for term in terms {
                let bounds = term.timeBounds
                if let lower = bounds.lower { lo = max(lo ?? lower, lower) }
                if let upper = bounds.upper { hi = min(hi ?? upper, upper) }
            }
            return (lo, hi)
        case .or(let terms):
            var lo: Int64? = Int64.max
            var hi: Int64? = Int64.min
            for term in terms {
                let bounds = term.timeBounds
                guard let lower = bounds.lower, let upper = bounds.upper else { return (nil, nil) }
                lo = min(lo!, lower)
                hi = max(hi!, upper)
            }
            return terms.isEmpty ? (nil, nil) : (lo, hi)
        default: return (nil, nil)
        }
    }

    /// True when the filter has a slow-path part.
    package var usesSlowPath: Bool {
        switch self {
        case .predicate: return true
        case .and(let terms), .or(let terms): return terms.contains { $0.usesSlowPath }
        case .not(let term): return term.usesSlowPath
        default: return false
        }
    }

    /// Columns the filter reads.
    package var columns: ColumnSet {
        switch self {
        case .all, .none: return []
        case .timeRange(let column, _, _), .numberRange(let column, _, _), .oneOf(let column, _),
             .contains(let column, _, _), .isNull(let column):
            return [column]
        case .box, .near: return [.latitude, .longitude]
        case .arithmetic(let comparison): return comparison.columns
        case .ids: return [.id]
        case .timeWindows: return [.time]
        case .and(let terms), .or(let terms): return terms.reduce(into: ColumnSet()) { $0.formUnion($1.columns) }
        case .not(let term): return term.columns
        case .after(let cursor): return ColumnSet(cursor.sort.map(\.column)).union([.id])
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
        } catch let quakeError as QuakeError {
            throw quakeError
        } catch {
            throw QuakeError(.predicateFailed, detail: "event \(q.id): \(error)")
        }
    }
}
