import PhoneAuthCore

/// Delivery: codes sent, delivered and entered per country and per channel in the last hour or
/// day (getPumpingStatistics), as charts and as the same numbers in tables; the pumping
/// defense's own estimates per country (and which are blocked); and the SMS providers' breakers
/// (skipped, restored), as this server's engine told them.
struct ConsoleDelivery: ConsoleSection {
    let engine: ConsoleEngine
    let providerHealth: @Sendable () -> [ProviderHealth]

    /// A window of the statistics: its name in the page's query, its words, its fields' suffix.
    private struct Window {
        let id: String
        let name: String
        let suffix: String
    }

    private static let windows = [
        Window(id: "hour", name: "Last hour", suffix: "LastHour"),
        Window(id: "day", name: "Last day", suffix: "LastDay"),
    ]

    private static let series = [
        ConsoleChart.Series(name: "Sent", colour: "#1f5fa8"), ConsoleChart.Series(name: "Delivered", colour: "#8a5a00"),
        ConsoleChart.Series(name: "Verified", colour: "#2e7d32"),
    ]

    /// Sent, delivered and verified codes of one country, channel, or both.
    private struct Counts {
        var sent: Int64 = 0
        var delivered: Int64 = 0
        var verified: Int64 = 0

        var values: [Int64] { [sent, delivered, verified] }

        /// Verified over sent, as a percentage.
        var conversion: String {
            guard sent > 0 else { return "—" }
            let tenths = verified * 1000 / sent
            return "\(tenths / 10).\(tenths % 10) %"
        }

        var cells: [String] { [String(sent), String(delivered), String(verified), conversion] }

        mutating func add(_ other: Self) {
            sent += other.sent
            delivered += other.delivered
            verified += other.verified
        }
    }

    func get(_ request: ConsoleRequest) async -> ConsoleAnswer {
        guard request.path.isEmpty else { return .notFound }
        let window = Self.windows.first { $0.id == request.query("window") } ?? Self.windows[1]
        var body = Self.windowLinks(window)
        switch await engine.call("getPumpingStatistics") {
        case let .success(statistics):
            body += Self.byCountryAndChannel(statistics["channels"]?.arrayValue ?? [], window: window)
            body += Self.estimates(statistics["countries"]?.arrayValue ?? [])
        case let .failure(failure): body += failure.html
        }
        body += Self.providers(providerHealth())
        return .page(title: "Delivery", body: body)
    }

    func post(_ request: ConsoleRequest) async -> ConsoleAnswer {
        .notFound
    }

    private static func windowLinks(_ current: Window) -> String {
        let links = windows.map { window in
            "<li><a href=\"/console/delivery?window=\(window.id)\""
                + (window.id == current.id ? " aria-current=\"page\"" : "") + ">\(window.name)</a></li>"
        }.joined()
        return "<nav aria-label=\"Window\"><ul>\(links)</ul></nav>"
    }

    /// The channels' exact counts (from the verifications), summed by country and by channel:
    /// a chart and a table each, then every country and channel in a table.
    private static func byCountryAndChannel(_ entries: [JSONValue], window: Window) -> String {
        var countries: [String: Counts] = [:], channels: [String: Counts] = [:]
        var detail: [[String]] = []
        for entry in entries {
            let region = entry["region"]?.stringValue ?? "", channel = entry["channel"]?.stringValue ?? ""
            let counts = Counts(
                sent: entry["sent" + window.suffix]?.intValue ?? 0,
                delivered: entry["delivered" + window.suffix]?.intValue ?? 0,
                verified: entry["verified" + window.suffix]?.intValue ?? 0)
            guard counts.sent > 0 || counts.verified > 0 else { continue }
            countries[region, default: Counts()].add(counts)
            channels[channel, default: Counts()].add(counts)
            detail.append([HTML.escape(region), HTML.escape(channel)] + counts.cells)
        }
        let headers = ["Sent", "Delivered", "Verified", "Conversion"]
        var html = "<h2>Codes per country, \(window.name.lowercased())</h2>"
        html += chartAndTable("Codes per country, \(window.name.lowercased())", "Country", countries, headers)
        html += "<h2>Codes per channel, \(window.name.lowercased())</h2>"
        html += chartAndTable("Codes per channel, \(window.name.lowercased())", "Channel", channels, headers)
        html += HTML.table(
            "Codes per country and channel, \(window.name.lowercased())", headers: ["Country", "Channel"] + headers,
            rows: detail)
        html +=
            "<p>Counted from the verifications (test numbers send nothing and are not counted). "
            + "Delivered: a provider's receipt said the latest message arrived; a provider without receipts "
            + "shows none. Conversion: verified over sent.</p>"
        return html
    }

    private static func chartAndTable(
        _ title: String, _ kind: String, _ counts: [String: Counts], _ headers: [String]
    ) -> String {
        let sorted = counts.sorted { ($1.value.sent, $0.key) < ($0.value.sent, $1.key) }
        let chart = ConsoleChart(
            title: title + ": sent, delivered and verified", series: series,
            groups: sorted.map { ConsoleChart.Group(label: $0.key, values: $0.value.values) })
        return "<figure>" + chart.svg + "</figure>"
            + HTML.table(title, headers: [kind] + headers, rows: sorted.map { [HTML.escape($0.key)] + $0.value.cells })
    }

    /// The pumping defense's sliding estimates per country (its scopes count every channel
    /// together), with the countries it blocks.
    private static func estimates(_ countries: [JSONValue]) -> String {
        let rows = countries.map { country -> [String] in
            let numbers = ["sentLastHour", "verifiedLastHour", "sentLastDay", "verifiedLastDay"].map {
                country[$0]?.intValue ?? 0
            }
            return [HTML.escape(ConsoleFormat.text(country["region"]))] + numbers.map { String($0) } + [
                Counts(sent: numbers[2], verified: numbers[3]).conversion,
                HTML.escape(ConsoleFormat.text(country["blockedUntil"])),
            ]
        }
        return "<h2>As the pumping defense counts them</h2>"
            + HTML.table(
                "Codes per country (estimated, every channel)",
                headers: [
                    "Country", "Sent (hour)", "Verified (hour)", "Sent (day)", "Verified (day)", "Conversion (day)",
                    "Blocked until",
                ], rows: rows)
    }

    /// The breakers of the SMS providers: skipped (until when, after how many failures, why) or
    /// restored.
    private static func providers(_ health: [ProviderHealth]) -> String {
        let rows = health.map { one -> [String] in
            [
                HTML.escape(one.provider), HTML.escape(one.channel ?? "every channel"),
                one.skipped ? "<strong>skipped</strong>" : "restored",
                HTML.escape(one.skipped ? "until " + (one.skippedUntil ?? "—") : "at " + one.at),
                one.failures.map { String($0) } ?? "—", HTML.escape(one.reason ?? "—"),
            ]
        }
        return "<h2>Provider health</h2>"
            + HTML.table(
                "SMS providers skipped or restored since this server started",
                headers: ["Provider", "Channel", "State", "Since or until", "Failures in a row", "Reason"],
                rows: rows)
            + "<p>A provider that fails several times in a row is skipped for a while, and messages "
            + "go to the next one; a provider never skipped is not listed. Each server keeps its own.</p>"
    }
}
