import Glibc
import PhoneAuthCore
import PhoneAuthKit
import Prometheus

/// /metrics (Prometheus text), the access log (one JSON line per request on stdout) and the
/// engine's events (one JSON line each on stderr; they never hold codes, tokens or whole numbers).
// @unchecked: the collectors' tables are only touched under `lock`; Prometheus's collectors are thread-safe.
final class Observability: @unchecked Sendable {
    let registry = PrometheusCollectorRegistry()
    private let smsSent: Counter
    private let smsFailed: Counter
    private let eventsPending: Gauge
    private let oldestEventAge: Gauge
    private let connectionsOpen: Gauge
    private let accessLog: Bool
    /// The registry validates names and labels on every lookup: each route's collectors are made once.
    private let lock = Lock()
    private var counters: [RequestKey: Counter] = [:]
    private var histograms: [String: DurationHistogram] = [:]
    /// Each provider's breaker per channel, as its last event told it (the console shows them).
    private var providers: [String: ProviderHealth] = [:]
    private static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .seconds(2.5), .seconds(5),
    ]

    init(accessLog: Bool) {
        self.accessLog = accessLog
        smsSent = registry.makeCounter(
            descriptor: .init(metricName: "phoneauth_sms_sent", unitName: "total", helpText: "SMS accepted by a sender")
        )
        smsFailed = registry.makeCounter(
            descriptor: .init(
                metricName: "phoneauth_sms_failed", unitName: "total", helpText: "SMS delivery attempts that failed"))
        eventsPending = registry.makeGauge(
            descriptor: .init(
                metricName: "phoneauth_events_pending", unitName: "", helpText: "Events recorded and not yet delivered")
        )
        oldestEventAge = registry.makeGauge(
            descriptor: .init(
                metricName: "phoneauth_events_oldest_pending_age", unitName: "seconds",
                helpText: "How long the oldest undelivered event has waited"))
        connectionsOpen = registry.makeGauge(
            descriptor: .init(
                metricName: "phoneauth_http_open", unitName: "connections",
                helpText: "Client connections open (server.maxConnections)"))
    }

    /// A connection counted in or out of server.maxConnections (ConnectionCap).
    func connectionOpened() { connectionsOpen.increment() }
    func connectionClosed() { connectionsOpen.decrement() }

    /// A connection phoneauthd closed on its client: a deadline passed (idle, header, body, shutdown), or
    /// it came past the cap. Slow clients in numbers show here first.
    func connectionCut(_ reason: String) {
        registry.makeCounter(
            descriptor: .init(
                metricName: "phoneauth_http_connections_cut", unitName: "total",
                helpText: "Connections closed on slow or idle clients, or past server.maxConnections"),
            labels: [("reason", reason)]
        ).increment()
    }

    /// The events outbox as it is now (read when /metrics is scraped).
    func eventBacklog(count: Int, oldestAgeSeconds: Int?) {
        eventsPending.set(Int64(count))
        oldestEventAge.set(Int64(oldestAgeSeconds ?? 0))
    }

    /// Each country's codes sent and entered in the last hour and day, as the pumping defense
    /// counted them, and each region's and channel's (read when /metrics is scraped): a
    /// conversion that falls shows here first.
    func pumpingCounts(_ countries: [JSONValue], channels: [JSONValue]) {
        for country in countries {
            guard let region = country["region"]?.stringValue else { continue }
            windowGauges(
                "phoneauth_pumping_codes", "Codes sent and entered per country in the last hour or day", country,
                labels: [("country", region)])
        }
        for entry in channels {
            guard let region = entry["region"]?.stringValue, let channel = entry["channel"]?.stringValue else {
                continue
            }
            windowGauges(
                "phoneauth_pumping_channel_codes",
                "Codes sent and entered per country and channel in the last hour or day", entry,
                labels: [("country", region), ("channel", channel)])
        }
    }

    /// The gauges of one entry's sentLastHour, verifiedLastHour, sentLastDay and verifiedLastDay.
    private func windowGauges(_ name: String, _ help: String, _ entry: JSONValue, labels: [(String, String)]) {
        for (window, sent, verified) in [
            ("hour", "sentLastHour", "verifiedLastHour"), ("day", "sentLastDay", "verifiedLastDay"),
        ] {
            for (outcome, key) in [("sent", sent), ("verified", verified)] {
                registry.makeGauge(
                    descriptor: .init(metricName: name, unitName: "", helpText: help),
                    labels: labels + [("window", window), ("outcome", outcome)]
                ).set(entry[key]?.intValue ?? 0)
            }
        }
    }

    /// Counts a request by route (never the raw path: it may hold a project or a method name a
    /// caller made up), status and latency, and writes its access-log line.
    func request(method: String, route: String, status: Int, started: ContinuousClock.Instant, clientIp: String) {
        let elapsed = ContinuousClock.now - started
        let (counter, histogram) = collectors(route: route, method: method, status: status)
        counter.increment()
        histogram.record(elapsed)
        guard accessLog else { return }
        let line: JSONValue = .object([
            ("time", .string(SystemClock().now().rfc3339)), ("method", .string(method)), ("route", .string(route)),
            ("status", .int(Int64(status))), ("ms", .int(elapsed.wholeMilliseconds)),
            ("clientIp", .string(clientIp)),
        ])
        StandardStream.output.write(JSONCodec.serialize(line) + "\n")
    }

    private func collectors(route: String, method: String, status: Int) -> (Counter, DurationHistogram) {
        let key = RequestKey(route: route, method: method, status: status)
        return lock.withLock {
            if let counter = counters[key], let histogram = histograms[route] { return (counter, histogram) }
            let counter =
                counters[key]
                ?? registry.makeCounter(
                    descriptor: .init(
                        metricName: "phoneauth_http_requests", unitName: "total", helpText: "HTTP requests"),
                    labels: [("route", route), ("method", method), ("status", String(status))])
            counters[key] = counter
            let histogram =
                histograms[route]
                ?? registry.makeDurationHistogram(
                    descriptor: .init(
                        metricName: "phoneauth_http_request_duration", unitName: "seconds",
                        helpText: "HTTP request latency"),
                    labels: [("route", route)], buckets: Self.buckets)
            histograms[route] = histogram
            return (counter, histogram)
        }
    }

    /// A request counter's labels, as its table's key (no text is built for it).
    private struct RequestKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    /// The SMS providers' breakers, by provider and channel: those skipped or restored since the
    /// server started (a provider never skipped has no entry).
    var providerHealth: [ProviderHealth] {
        lock.withLock { providers.values.sorted { ($0.provider, $0.channel ?? "") < ($1.provider, $1.channel ?? "") } }
    }

    /// An engine event (PhoneAuthKit's event handler): counted, and written as it came.
    func record(_ event: Event) {
        if let health = ProviderHealth(event) { lock.withLock { providers[health.key] = health } }
        switch event.name {
        case "codeSent": smsSent.increment()
        case "deliveryFailed": smsFailed.increment()
        case "limitTripped", "lockout":
            registry.makeCounter(
                descriptor: .init(
                    metricName: "phoneauth_limits_tripped", unitName: "total",
                    helpText: "Abuse limits and lockouts tripped"),
                labels: [("limit", event.string("limit") ?? event.name)]
            ).increment()
        case "pumpingSuspected":
            registry.makeCounter(
                descriptor: .init(
                    metricName: "phoneauth_pumping_refused", unitName: "total",
                    helpText: "Sends the pumping defense refused (or flagged, in record mode)"),
                labels: [
                    ("country", event.string("region") ?? "unknown"),
                    ("scope_kind", event.string("scopeKind") ?? "unknown"),
                    ("rule", event.string("rule") ?? "unknown"),
                    ("action", event.string("action") ?? "unknown"),
                    ("channel", event.string("channel") ?? "unknown"),
                ]
            ).increment()
        case "eventDeliveryFailed":
            registry.makeCounter(
                descriptor: .init(
                    metricName: "phoneauth_event_delivery_failures", unitName: "total",
                    helpText: "Event deliveries that failed (each is retried)"),
                labels: [("type", event.string("type") ?? "unknown")]
            ).increment()
        case "hookCalled":
            let hook = event.string("hook") ?? "unknown"
            registry.makeCounter(
                descriptor: .init(
                    metricName: "phoneauth_hook_calls", unitName: "total",
                    helpText: "Blocking hook calls by outcome (answered, refused, failed)"),
                labels: [("hook", hook), ("outcome", event.string("outcome") ?? "unknown")]
            ).increment()
            registry.makeDurationHistogram(
                descriptor: .init(
                    metricName: "phoneauth_hook_duration", unitName: "seconds", helpText: "Blocking hook latency"),
                labels: [("hook", hook)], buckets: Self.buckets
            ).record(.milliseconds(event.int("ms") ?? 0))
        default: break
        }
        StandardStream.error.write(event.json + "\n")
    }

    var metricsText: String { registry.emitToString() }
}
