import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

extension QueryArgs {
    /// Most circles a map draws unless `--limit` says otherwise.
    static let defaultMapCap = 5000

    /// `--format svg`: the matching events by descending magnitude, capped, drawn as a map.
    func drawMap(_ s: Store, to sink: OutputSink) throws {
        let filter = try filters.filter(in: s)
        var spec = try page.spec(filter: filter, defaultLimit: Self.defaultMapCap)
        spec.sort = [SortKey(.mag, ascending: false)]
        let result = try s.query(spec, columns: MapPicture.columns)
        let matched = result.count < (spec.limit ?? Int.max) ? result.count + spec.offset
            : try s.count(spec.effectiveFilter)
        var map = MapPicture()
        map.region = region
        map.coloring = colorBy
        map.coastlines = try? Coastlines()
        map.title = "quakes query " + Self.titleArguments(Array(CommandLine.arguments.dropFirst(2)))
        try deliver(map.svg(result, matched: max(0, matched - spec.offset)), to: sink)
    }

    /// Writes a figure to `--out` (through ``OutputSink``, so a link or device is written through)
    /// or to `sink`.
    func deliver(_ svg: String, to sink: OutputSink) throws {
        if let out {
            let file = try OutputSink(path: out)
            file.write(svg)
            try file.finish()
        } else {
            sink.write(svg)
        }
    }

    /// The command's own arguments for a figure's title: without the store, the output, map and plot
    /// options or the cap (the legend states it).
    static func titleArguments(_ args: [String]) -> String {
        let dropWithValue: Set = ["--store", "--format", "--out", "--region", "--color-by", "--limit", "--plot"]
        var out: [String] = []
        var skip = false
        for argument in args {
            if skip {
                skip = false
                continue
            }
            if dropWithValue.contains(argument) {
                skip = true
                continue
            }
            if dropWithValue.contains(where: { argument.hasPrefix($0 + "=") }) { continue }
            out.append(argument.contains(" ") ? "'\(argument)'" : argument)
        }
        return out.joined(separator: " ")
    }
}
