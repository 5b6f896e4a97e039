import Foundation

extension SVGChart {
    /// The plot frame, each axis's ticks (inward, major ones longer and labelled) and its title.
    func axes() -> String {
        var out = "<g id=\"axes\" stroke=\"#000000\" stroke-width=\"0.8\" fill=\"none\">\n"
        out += "<rect id=\"frame\" x=\"\(number(plotLeft))\" y=\"\(number(plotTop))\" "
            + "width=\"\(number(plotRight - plotLeft))\" height=\"\(number(plotBottom - plotTop))\"/>\n"
        for tick in xAxis.ticks() {
            guard let column = x(tick.value), column >= plotLeft - 0.01, column <= plotRight + 0.01 else { continue }
            let length = tick.isMajor ? 6.0 : 3.0
            out += "<line x1=\"\(number(column))\" y1=\"\(number(plotBottom))\" x2=\"\(number(column))\" "
                + "y2=\"\(number(plotBottom - length))\"/>\n"
        }
        for tick in yAxis.ticks() {
            guard let row = y(tick.value), row >= plotTop - 0.01, row <= plotBottom + 0.01 else { continue }
            let length = tick.isMajor ? 6.0 : 3.0
            out += "<line x1=\"\(number(plotLeft))\" y1=\"\(number(row))\" x2=\"\(number(plotLeft + length))\" "
                + "y2=\"\(number(row))\"/>\n"
        }
        out += "</g>\n"
        return out + tickLabels() + axisTitles()
    }

    /// The labels of the major ticks: below the x axis, left of the y axis.
    private func tickLabels() -> String {
        var out = "<g id=\"tick-labels\" fill=\"#000000\" font-size=\"11\">\n"
        for tick in xAxis.ticks() where tick.isMajor && !tick.label.isEmpty {
            guard let column = x(tick.value), column >= plotLeft - 0.01, column <= plotRight + 0.01 else { continue }
            out += "<text x=\"\(number(column))\" y=\"\(number(plotBottom + 16))\" text-anchor=\"middle\">"
                + "\(SVGChart.escaped(tick.label))</text>\n"
        }
        for tick in yAxis.ticks() where tick.isMajor && !tick.label.isEmpty {
            guard let row = y(tick.value), row >= plotTop - 0.01, row <= plotBottom + 0.01 else { continue }
            out += "<text x=\"\(number(plotLeft - 6))\" y=\"\(number(row + 4))\" text-anchor=\"end\">"
                + "\(SVGChart.escaped(tick.label))</text>\n"
        }
        return out + "</g>\n"
    }

    /// The axis titles: centred below the x axis, and turned up along the y axis.
    private func axisTitles() -> String {
        var out = ""
        if !xAxis.title.isEmpty {
            out += "<text id=\"x-title\" x=\"\(number((plotLeft + plotRight) / 2))\" "
                + "y=\"\(number(plotBottom + 40))\" text-anchor=\"middle\" font-size=\"12\" fill=\"#000000\">"
                + "\(SVGChart.escaped(xAxis.title))</text>\n"
        }
        if !yAxis.title.isEmpty {
            let column = 18.0
            let row = (plotTop + plotBottom) / 2
            out += "<text id=\"y-title\" x=\"\(number(column))\" y=\"\(number(row))\" text-anchor=\"middle\" "
                + "font-size=\"12\" fill=\"#000000\" transform=\"rotate(-90 \(number(column)) \(number(row)))\">"
                + "\(SVGChart.escaped(yAxis.title))</text>\n"
        }
        return out
    }
}
