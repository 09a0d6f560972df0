import PhoneAuthCore

/// Fraud: the pumping defense's decisions (listPumpingDecisions), newest first and paged, with
/// what each saw; and lifting a block still in force (liftPumpingBlock). A decision names a
/// scope (a number's prefix, a country, a network), never a number.
struct ConsoleFraud: ConsoleSection {
    let engine: ConsoleEngine

    private static let scopeKinds: Set<String> = ["prefix", "country", "network"]

    func get(_ request: ConsoleRequest) async -> ConsoleAnswer {
        guard request.path.isEmpty else { return .notFound }
        var params: [(String, JSONValue)] = [("maxResults", .int(50))]
        let pageToken = request.query("pageToken")
        if let pageToken { params.append(("pageToken", .string(pageToken))) }
        let result = await engine.call("listPumpingDecisions", params)
        guard case let .success(page) = result else {
            if case let .failure(failure) = result { return .page(title: "Fraud", body: failure.html) }
            return .page(title: "Fraud", body: "")
        }
        let decisions = page["decisions"]?.arrayValue ?? []
        var body =
            "<p>The SMS pumping defense's decisions, newest first: codes it refused (or, in record mode, "
            + "flagged) and blocks an operator lifted. A scope is a number's prefix, a country or a network, "
            + "never a whole number.</p>"
        body += HTML.table(
            "Pumping decisions" + (pageToken == nil ? "" : " (later page)"),
            headers: [
                "Time", "Action", "Scope kind", "Scope", "Rule", "Sent", "Verified", "Allowance", "Until", "Region",
                "Tenant", "Channel", "Risk", "Block",
            ],
            rows: Self.rows(decisions, liftable: Self.liftable(decisions), csrf: request.session.csrf))
        if let next = page["pageToken"]?.stringValue {
            body +=
                "<p>" + HTML.link("/console/fraud?pageToken=" + PercentEncoding.encode(next), "Older decisions")
                + "</p>"
        }
        return .page(title: "Fraud", body: body)
    }

    func post(_ request: ConsoleRequest) async -> ConsoleAnswer {
        guard request.path == ["lift"] else {
            return .notFound
        }
        let kind = request.field("scopeKind") ?? "", scope = request.field("scope") ?? ""
        let result = await engine.call("liftPumpingBlock", [("scopeKind", .string(kind)), ("scope", .string(scope))])
        let target = kind + ":" + scope
        switch result {
        case let .success(answer) where answer["lifted"] == .bool(true):
            request.audit.record("liftPumpingBlock", target: target, outcome: "done")
            return .redirect(path: "/console/fraud", notice: "The block on \(kind) \(scope) is lifted.")
        case .success:
            request.audit.record("liftPumpingBlock", target: target, outcome: "notBlocked")
            return .redirect(
                path: "/console/fraud", notice: "Nothing lifted: \(kind) \(scope) has no block in force.")
        case let .failure(failure):
            request.audit.record("liftPumpingBlock", target: target, outcome: "refused")
            return .redirect(path: "/console/fraud", notice: "Refused: " + failure.message)
        }
    }

    /// The decisions that get a lift button: each scope's newest refusal or flag whose `until` is
    /// still ahead, unless a newer decision on this page lifted it (the engine says `lifted` false
    /// when the block ended otherwise).
    private static func liftable(_ decisions: [JSONValue]) -> Set<Int> {
        let now = SystemClock().now()
        var seen: Set<String> = [], chosen: Set<Int> = []
        for (index, decision) in decisions.enumerated() {
            let kind = decision["scopeKind"]?.stringValue ?? "", scope = decision["scope"]?.stringValue ?? ""
            guard scopeKinds.contains(kind), seen.insert(kind + ":" + scope).inserted else { continue }
            let action = decision["action"]?.stringValue
            guard action == "refused" || action == "flagged",
                let until = decision["until"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) }), until > now
            else { continue }
            chosen.insert(index)
        }
        return chosen
    }

    private static func rows(_ decisions: [JSONValue], liftable: Set<Int>, csrf: String) -> [[String]] {
        decisions.enumerated().map { index, decision in
            var cells = [
                "time", "action", "scopeKind", "scope", "rule", "sent", "verified", "allowance", "until", "region",
                "tenantId", "channel", "risk",
            ].map { HTML.escape(ConsoleFormat.text(decision[$0])) }
            if cells[10].isEmpty { cells[10] = "default pool" }
            guard liftable.contains(index) else {
                cells.append("—")
                return cells
            }
            let kind = decision["scopeKind"]?.stringValue ?? "", scope = decision["scope"]?.stringValue ?? ""
            cells.append(
                HTML.form(
                    "/console/fraud/lift", csrf: csrf, fields: [("scopeKind", kind), ("scope", scope)],
                    button: "Lift the block on \(scope)", danger: true))
            return cells
        }
    }
}
