import Foundation
import QuakeFormat
extension Filter {
    /// The filter's leaves: those run as column kernels, and those on the exact slow path.
    package var plan: (kernels: [String], slowPath: [String]) {
        switch self {
        case .all, .none: return ([], [])
        case .and(let terms):
            return terms.reduce(into: ([String](), [String]())) { acc, term in
                let termPlan = term.plan
                acc.0 += termPlan.kernels
                acc.1 += termPlan.slowPath
            }
        case .or(let terms):
            // the branches' kernels are one either-or term: listed apart, they would read as "and"
            var kernels: [String] = []
            var slowPath: [String] = []
            for branch in terms {
                let branchPlan = branch.plan
                kernels += branchPlan.kernels
                slowPath += branchPlan.slowPath
            }
            return (kernels.count > 1 ? ["(" + kernels.joined(separator: " or ") + ")"] : kernels, slowPath)
        case .not(let term):
            // the negation of the inner terms, said as such (a minimum radius is `not (distance <= r)`)
            let inner = term.plan
            let kernels = inner.kernels.isEmpty ? [] : ["not (" + inner.kernels.joined(separator: " and ") + ")"]
            let slowPath = inner.slowPath.isEmpty ? [] : ["not (" + inner.slowPath.joined(separator: " and ") + ")"]
            return (kernels, slowPath)
        case .predicate(let predicate): return ([], [predicate.label])
        case .contains(.place, _, _): return (["\(self) [place dictionary scan]"], [])
        case .oneOf(let column, _) where column.kind == .category: return (["\(self) [dictionary codes]"], [])
        case .timeRange(.time, _, _): return (["\(self) [time index + zone maps]"], [])
        case .numberRange: return (["\(self) [zone maps + range kernel]"], [])
        case .arithmetic: return (["\(self) [arithmetic kernel on decoded columns]"], [])
        default: return (["\(self)"], [])
        }
    }
}

extension QueryStats {
    /// Human-readable `explain` text.
    package func report(filter: Filter) -> String {
        let plan = filter.plan
        var lines: [String] = []
        lines.append("strategy:    \(strategy)")
        let byCatalog = partitionsPrunedByPlace + partitionsSkippedByTopN == 0 ? ""
            : "\(partitionsPrunedByPlace) pruned by the catalog's localities, "
            + "\(partitionsSkippedByTopN) skipped by the top-N cut-off, "
        let read = partitionsTotal - partitionsPruned - partitionsPrunedByPlace - partitionsSkippedByTopN
            - partitionsPrunedByIdIndex
        let byIds = partitionsPrunedByIdIndex == 0 ? "" : "\(partitionsPrunedByIdIndex) pruned by the id index, "
        lines.append("partitions:  \(partitionsTotal) total, \(partitionsPruned) pruned by the time index, "
                     + "\(byIds)\(byCatalog)\(read) read")
        lines.append("blocks:      \(blocksTotal) considered, \(blocksPruned) pruned by zone maps, "
                     + "\(blocksFromStatistics) answered from statistics, \(blocksScanned) scanned, "
                     + "\(blocksSkippedByTopN) skipped by the top-N threshold")
        let byPlaceIndex = granulesPrunedByPlace == 0 ? "" : "\(granulesPrunedByPlace) pruned by the place index, "
        lines.append("granules:    \(granulesTotal) considered (4096 rows each), "
                     + "\(granulesPruned) pruned by granule zone maps and mag histograms, \(byPlaceIndex)"
                     + "\(granulesFromStatistics) answered from statistics, "
                     + "\(granulesMatchedWhole) matched whole by zone maps (rows read, no filter work), "
                     + "\(granulesScanned) scanned, \(granulesSkippedByTopN) skipped by the top-N cut-off")
        let kernels = plan.kernels.isEmpty ? "none" : plan.kernels.joined(separator: "; ")
        lines.append("kernels:     \(kernels)")
        let slowPath = plan.slowPath.isEmpty ? "none"
            : plan.slowPath.joined(separator: "; ") + " (evaluated row by row, exact)"
        lines.append("slow path:   \(slowPath)")
        lines.append("columns:     \(columnsRead.isEmpty ? "none decoded" : columnsRead.joined(separator: ", "))")
        lines.append("rows:        \(rowsEstimated) estimated after pruning, \(rowsMatched) matched, "
                     + "\(rowsReturned) returned")
        if strategy == "hash aggregate" {
            lines.append("aggregate:   \(rowsFolded) rows folded from decoded columns, \(unitsFromAggregates) granules "
                         + "folded from stored unit aggregates, \(unitsFromHistograms) from mag histograms, "
                         + "\(unitsFromZoneMaps) counted from zone maps")
        }
        for (stage, milliseconds) in stages {
            lines.append("time:        " + String(format: "%9.2f ms  ", milliseconds) + stage)
        }
        return lines.joined(separator: "\n")
    }

    /// The same as ``report(filter:)``, as JSON: every counter by name, the filter's kernels and
    /// slow path, the columns read, and the stages with their milliseconds.
    package func json(filter: Filter) -> String {
        let plan = filter.plan
        let object: [String: Any] = [
            "strategy": strategy,
            "partitions": ["total": partitionsTotal, "prunedByTime": partitionsPruned,
                           "prunedByPlace": partitionsPrunedByPlace, "skippedByTopN": partitionsSkippedByTopN,
                           "prunedByIdIndex": partitionsPrunedByIdIndex],
            "blocks": ["total": blocksTotal, "pruned": blocksPruned, "fromStatistics": blocksFromStatistics,
                       "scanned": blocksScanned, "skippedByTopN": blocksSkippedByTopN],
            "granules": ["total": granulesTotal, "pruned": granulesPruned, "prunedByPlace": granulesPrunedByPlace,
                         "fromStatistics": granulesFromStatistics, "matchedWhole": granulesMatchedWhole,
                         "scanned": granulesScanned, "skippedByTopN": granulesSkippedByTopN],
            "kernels": plan.kernels,
            "slowPath": plan.slowPath,
            "columnsRead": columnsRead,
            "rows": ["estimated": rowsEstimated, "matched": rowsMatched, "returned": rowsReturned,
                     "folded": rowsFolded],
            "aggregateUnits": ["fromAggregates": unitsFromAggregates, "fromHistograms": unitsFromHistograms,
                               "fromZoneMaps": unitsFromZoneMaps],
            "stages": stages.map { ["stage": $0.name, "milliseconds": $0.milliseconds] as [String: Any] },
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
