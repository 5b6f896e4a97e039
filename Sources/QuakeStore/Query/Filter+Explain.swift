import Foundation
import QuakeFormat
extension Filter {
    /// The filter's leaves: those run as column kernels, and those on the exact slow path.
    package var plan: (kernels: [String], slowPath: [String]) {
        switch self {
        case .all, .none: return ([], [])
        case .and(let fs):
            return fs.reduce(into: ([String](), [String]())) { acc, f in
                let p = f.plan
                acc.0 += p.kernels
                acc.1 += p.slowPath
            }
        case .or(let fs):
            // the branches' kernels are one either-or term: listed apart, they would read as "and"
            var kernels: [String] = []
            var slowPath: [String] = []
            for branch in fs {
                let branchPlan = branch.plan
                kernels += branchPlan.kernels
                slowPath += branchPlan.slowPath
            }
            return (kernels.count > 1 ? ["(" + kernels.joined(separator: " or ") + ")"] : kernels, slowPath)
        case .not(let f):
            // the negation of the inner terms, said as such (a minimum radius is `not (distance <= r)`)
            let inner = f.plan
            let kernels = inner.kernels.isEmpty ? [] : ["not (" + inner.kernels.joined(separator: " and ") + ")"]
            let slowPath = inner.slowPath.isEmpty ? [] : ["not (" + inner.slowPath.joined(separator: " and ") + ")"]
            return (kernels, slowPath)
        case .predicate(let p): return ([], [p.label])
        case .contains(.place, _, _): return (["\(self) [place dictionary scan]"], [])
        case .oneOf(let c, _) where c.kind == .category: return (["\(self) [dictionary codes]"], [])
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
        let p = filter.plan
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
        lines.append("blocks:      \(blocksTotal) considered, \(blocksPruned) pruned by zone maps, \(blocksFromStatistics) answered from statistics, \(blocksScanned) scanned, \(blocksSkippedByTopN) skipped by the top-N threshold")
        lines.append("granules:    \(granulesTotal) considered (4096 rows each), \(granulesPruned) pruned by granule zone maps and mag histograms, \(granulesPrunedByPlace == 0 ? "" : "\(granulesPrunedByPlace) pruned by the place index, ")\(granulesFromStatistics) answered from statistics, \(granulesMatchedWhole) matched whole by zone maps (rows read, no filter work), \(granulesScanned) scanned, \(granulesSkippedByTopN) skipped by the top-N cut-off")
        lines.append("kernels:     \(p.kernels.isEmpty ? "none" : p.kernels.joined(separator: "; "))")
        lines.append("slow path:   \(p.slowPath.isEmpty ? "none" : p.slowPath.joined(separator: "; ") + " (evaluated row by row, exact)")")
        lines.append("columns:     \(columnsRead.isEmpty ? "none decoded" : columnsRead.joined(separator: ", "))")
        lines.append("rows:        \(rowsEstimated) estimated after pruning, \(rowsMatched) matched, \(rowsReturned) returned")
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
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
