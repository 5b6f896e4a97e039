import Foundation
import QuakeFormat
import QuakeInterchange
import QuakeStore

extension QueryArgs {
    /// Most events a magnitude–time plot reads unless `--limit` says otherwise.
    static let defaultMagnitudeTimeCap = 50_000

    /// `--format svg --plot magtime`: the matching events in time order, capped, a dot each at
    /// their time and magnitude; those without a magnitude are counted, not drawn.
    func drawMagnitudeTime(_ target: Store, to sink: OutputSink) throws {
        let filter = try filters.filter(in: target)
        var spec = try page.spec(filter: filter, defaultLimit: Self.defaultMagnitudeTimeCap)
        spec.sort = [SortKey(.time, ascending: true)]
        let result = try target.query(spec, columns: [.time, .mag])
        let matched = result.count < (spec.limit ?? Int.max) ? result.count + spec.offset
            : try target.count(spec.effectiveFilter)
        let batch = result.batch
        let times = batch.ints[Column.time.rawValue]
        let magnitudes = batch.ints[Column.mag.rawValue]
        var events: [MagnitudeTimeChart.Event] = []
        var withoutMagnitude = 0
        for row in 0..<batch.count where times[row] != RowBatch.null {
            guard magnitudes[row] != RowBatch.null else {
                withoutMagnitude += 1
                continue
            }
            events.append(.init(time: times[row], magnitude: ScaledDecimal.double(magnitudes[row])))
        }
        var chart = MagnitudeTimeChart(events, title: "quakes query "
            + Self.titleArguments(Array(CommandLine.arguments.dropFirst(2))))
        chart.withoutMagnitude += withoutMagnitude
        chart.notRead = max(0, matched - spec.offset - batch.count)
        try deliver(chart.svg(), to: sink)
    }
}
