import QuakeSupport
import Foundation

/// Magnitude against time as a figure: a dot per event with both, the events without a
/// magnitude left out and counted in the subtitle.
package struct MagnitudeTimeChart: Sendable {
    /// One event: its time (epoch milliseconds) and magnitude.
    package struct Event: Sendable, Equatable {
        /// The origin time, epoch milliseconds.
        package var time: Int64
        /// The magnitude.
        package var magnitude: Double

        /// An event at `time` of `magnitude`.
        package init(time: Int64, magnitude: Double) {
            self.time = time
            self.magnitude = magnitude
        }
    }

    /// The events drawn (those with a finite magnitude).
    package var events: [Event]
    /// The events left out for want of a magnitude.
    package var withoutMagnitude = 0
    /// Matching events not read because of the cap (the subtitle says so).
    package var notRead = 0
    /// The title.
    package var title: String

    /// A chart of `events`; those whose magnitude is not finite are left out and counted.
    package init(_ events: [Event], title: String) {
        self.events = events.filter { $0.magnitude.isFinite }
        self.withoutMagnitude = events.count - self.events.count
        self.title = title
    }

    /// The frame: the events' time span against their magnitudes.
    package func frame() -> SVGChart {
        let times = events.map { Double($0.time) }
        let magnitudes = events.map(\.magnitude)
        let lowest = magnitudes.min() ?? 0
        let highest = magnitudes.max() ?? 5
        // a little room, so that no dot sits on the frame
        let pad = max(0.1, (highest - lowest) * 0.03)
        var chart = SVGChart(xAxis: .time(covering: times.min() ?? 0, times.max() ?? 0, title: "Time (UTC)"),
                             yAxis: .linear(covering: lowest - pad, highest + pad, title: "Magnitude M"),
                             title: title)
        var parts = ["\(events.count.grouped) event\(events.count == 1 ? "" : "s") drawn"]
        if withoutMagnitude > 0 {
            parts.append("\(withoutMagnitude.grouped) without a magnitude left out")
        }
        if notRead > 0 { parts.append("\(notRead.grouped) more not read (raise --limit)") }
        chart.subtitle = parts.joined(separator: "; ")
        return chart
    }

    /// The SVG document.
    package func svg() -> String {
        let chart = frame()
        var marks = "<g id=\"events\" fill=\"#000000\" fill-opacity=\"0.55\">\n"
        for event in events {
            guard let column = chart.x(Double(event.time)), let row = chart.y(event.magnitude) else { continue }
            marks += "<circle cx=\"\(chart.number(column))\" cy=\"\(chart.number(row))\" r=\"1.8\"/>\n"
        }
        marks += "</g>\n"
        return chart.document(marks, note: events.isEmpty ? SVGChart.noEventsNote : nil)
    }
}
