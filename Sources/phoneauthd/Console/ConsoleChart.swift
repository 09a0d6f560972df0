/// Bar charts drawn on the server as inline SVG, so the console needs no script: grouped bars (one
/// per series in each group), a value axis with three ticks, the groups' labels under them and a
/// legend. Colours are presentation attributes (fill=), which the page's CSP allows where a style
/// attribute is not; every label is escaped. The chart has a title and is one image to a screen
/// reader (role="img", aria-label), whose numbers the table under it gives.
struct ConsoleChart: Sendable {
    struct Series: Sendable {
        let name: String
        /// A colour as SVG spells it (`#1f5fa8`).
        let colour: String
    }

    struct Group: Sendable {
        let label: String
        /// One value per series, in the series' order.
        let values: [Int64]
    }

    let title: String
    let series: [Series]
    let groups: [Group]

    private static let barWidth = 16, groupGap = 20, plotHeight = 160
    private static let left = 52, top = 36, bottom = 28, right = 12

    /// The SVG, or a sentence when there is nothing to draw.
    var svg: String {
        guard !groups.isEmpty, !series.isEmpty else { return "<p>\(HTML.escape(title)): nothing to show.</p>" }
        let groupWidth = series.count * Self.barWidth + Self.groupGap
        let width = max(Self.left + groups.count * groupWidth, legendEnd) + Self.right
        let height = Self.top + Self.plotHeight + Self.bottom
        let scale = Self.niceCeiling(groups.flatMap(\.values).max() ?? 0)
        let label = HTML.escape(title)
        var parts = [
            "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"\(label)\""
                + " width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">",
            "<title>\(label)</title>",
        ]
        parts += legend()
        parts += axis(width: width, scale: scale)
        for (index, group) in groups.enumerated() {
            parts += bars(group, at: Self.left + Self.groupGap / 2 + index * groupWidth, scale: scale)
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    /// Where each series' key begins: a square, its name (about 8 pixels a character), a gap.
    private var legendStarts: [Int] {
        series.reduce(into: [Self.left]) { starts, one in starts.append(starts.last! + 32 + 8 * one.name.count) }
    }

    private var legendEnd: Int { legendStarts.last ?? Self.left }

    private func legend() -> [String] {
        zip(series, legendStarts).map { one, x in
            "<rect x=\"\(x)\" y=\"8\" width=\"12\" height=\"12\" fill=\"\(HTML.escape(one.colour))\"/>"
                + "<text x=\"\(x + 16)\" y=\"18\" font-size=\"12\" fill=\"#1b1f24\">\(HTML.escape(one.name))</text>"
        }
    }

    /// The value axis: a baseline, and 0, half (when a whole number) and the top of the scale
    /// with faint grid lines.
    private func axis(width: Int, scale: Int64) -> [String] {
        let baseline = Self.top + Self.plotHeight
        var lines = [
            "<line x1=\"\(Self.left)\" y1=\"\(baseline)\" x2=\"\(width - Self.right)\" y2=\"\(baseline)\""
                + " stroke=\"#5b6470\"/>"
        ]
        for tick in scale % 2 == 0 ? [0, scale / 2, scale] : [0, scale] {
            let y = baseline - Int(tick * Int64(Self.plotHeight) / scale)
            if tick > 0 {
                lines.append(
                    "<line x1=\"\(Self.left)\" y1=\"\(y)\" x2=\"\(width - Self.right)\" y2=\"\(y)\""
                        + " stroke=\"#dde1e6\"/>")
            }
            lines.append(
                "<text x=\"\(Self.left - 6)\" y=\"\(y + 4)\" font-size=\"11\" text-anchor=\"end\""
                    + " fill=\"#1b1f24\">\(tick)</text>")
        }
        return lines
    }

    /// One group's bars from `x`, each with its value as a tooltip (<title>), and its label under them.
    private func bars(_ group: Group, at x: Int, scale: Int64) -> [String] {
        let baseline = Self.top + Self.plotHeight
        var parts: [String] = []
        for (index, one) in series.enumerated() {
            let value = index < group.values.count ? max(group.values[index], 0) : 0
            let height = Int(value * Int64(Self.plotHeight) / scale)
            parts.append(
                "<rect x=\"\(x + index * Self.barWidth)\" y=\"\(baseline - height)\" width=\"\(Self.barWidth - 2)\""
                    + " height=\"\(height)\" fill=\"\(HTML.escape(one.colour))\"><title>"
                    + HTML.escape("\(group.label), \(one.name): \(value)") + "</title></rect>")
        }
        let middle = x + series.count * Self.barWidth / 2
        parts.append(
            "<text x=\"\(middle)\" y=\"\(baseline + 18)\" font-size=\"12\" text-anchor=\"middle\" fill=\"#1b1f24\">"
                + HTML.escape(group.label) + "</text>")
        return parts
    }

    /// The scale's top: the largest value rounded up to 1, 2 or 5 times a power of ten (at least 2).
    static func niceCeiling(_ value: Int64) -> Int64 {
        guard value > 2 else { return 2 }
        var power: Int64 = 1
        while power * 10 < value { power *= 10 }
        for step in [1, 2, 5, 10] as [Int64] where step * power >= value { return step * power }
        return 10 * power
    }
}
