import PhoneAuthCore

/// Operations: the signing keys (listSigningKeys) with rotation (rotateSigningKey, an algorithm
/// chosen or the configured one) and retirement (retireSigningKey, confirmed by typing the kid:
/// the tokens it signed stop verifying at once); the events not yet delivered (listPendingEvents,
/// paged) with dropping one (dropPendingEvent, confirmed by a tick); the engine's status
/// (getStatus) and its store's statistics (getStorageStatistics).
struct ConsoleOperations: ConsoleSection {
    static let path = "/console/operations"
    static let algorithms = ["ES256", "RS256", "EdDSA"]

    let engine: ConsoleEngine

    func get(_ request: ConsoleRequest) async -> ConsoleAnswer {
        guard request.path.isEmpty else { return .notFound }
        let csrf = request.session.csrf
        var body = await signingKeys(csrf: csrf)
        body += await pendingEvents(csrf: csrf, pageToken: request.query("eventsPage"))
        body += "<h2>Engine status</h2>" + (await definitions("getStatus"))
        body += "<h2>Storage statistics</h2>" + (await definitions("getStorageStatistics"))
        return .page(title: "Operations", body: body)
    }

    func post(_ request: ConsoleRequest) async -> ConsoleAnswer {
        guard request.path.count == 1 else {
            return .notFound
        }
        switch request.path[0] {
        case "rotate": return await rotate(request)
        case "retire": return await retire(request)
        case "drop": return await drop(request)
        default: return .notFound
        }
    }

    // MARK: Actions

    private func rotate(_ request: ConsoleRequest) async -> ConsoleAnswer {
        let algorithm = request.field("algorithm") ?? ""
        let result = await engine.call(
            "rotateSigningKey", algorithm.isEmpty ? [] : [("algorithm", .string(algorithm))])
        let active = (try? result.get())?["keys"]?.arrayValue?.last(where: { $0["active"] == .bool(true) })
        let kid = active?["kid"]?.stringValue
        request.audit.record(
            "rotateSigningKey", target: kid ?? (algorithm.isEmpty ? "configured algorithm" : algorithm),
            outcome: ConsoleAudit.outcome(result))
        if case let .failure(failure) = result {
            return .redirect(path: Self.path, notice: "Refused: " + failure.message)
        }
        return .redirect(
            path: Self.path,
            notice: "Rotated: key \(kid ?? "?") signs from now on; the previous keys verify until "
                + "the tokens they signed expire.")
    }

    private func retire(_ request: ConsoleRequest) async -> ConsoleAnswer {
        let kid = (request.field("kid") ?? "").trimmingSpaces
        let result = await engine.call("retireSigningKey", [("kid", .string(kid))])
        request.audit.record("retireSigningKey", target: kid, outcome: ConsoleAudit.outcome(result))
        if case let .failure(failure) = result {
            return .redirect(path: Self.path, notice: "Refused: " + failure.message)
        }
        return .redirect(path: Self.path, notice: "Key \(kid) retired: the tokens it signed no longer verify.")
    }

    private func drop(_ request: ConsoleRequest) async -> ConsoleAnswer {
        let eventId = request.field("eventId") ?? ""
        guard request.field("confirm") == "1" else {
            request.audit.record("dropPendingEvent", target: eventId, outcome: "unconfirmed")
            return .redirect(path: Self.path, notice: "Not dropped: tick the box to confirm.")
        }
        let result = await engine.call("dropPendingEvent", [("eventId", .string(eventId))])
        request.audit.record("dropPendingEvent", target: eventId, outcome: ConsoleAudit.outcome(result))
        if case let .failure(failure) = result {
            return .redirect(path: Self.path, notice: "Refused: " + failure.message)
        }
        return .redirect(path: Self.path, notice: "Event \(eventId) dropped: it will not be delivered.")
    }

    // MARK: Parts of the page

    private func signingKeys(csrf: String) async -> String {
        var html = "<h2>Signing keys</h2>"
        switch await engine.call("listSigningKeys") {
        case let .success(found):
            html += HTML.table(
                "Keys that verify tokens now, oldest first",
                headers: ["kid", "Algorithm", "Created", "Age (days)", "Active", "Retires"],
                rows: (found["keys"]?.arrayValue ?? []).map { key in
                    ["kid", "algorithm", "createdAt", "ageDays", "active", "retiresAt"].map {
                        HTML.escape(ConsoleFormat.text(key[$0]))
                    }
                })
        case let .failure(failure): html += failure.html
        }
        let options =
            "<option value=\"\" selected>The configured algorithm</option>"
            + Self.algorithms.map { "<option value=\"\($0)\">\($0)</option>" }.joined()
        html += HTML.form(
            Self.path + "/rotate", csrf: csrf,
            inputs: "<label for=\"algorithm\">Algorithm of the new key</label>"
                + "<select id=\"algorithm\" name=\"algorithm\">\(options)</select>",
            button: "Rotate")
        html +=
            "<p>Retiring a key takes it out of the JWKS: the tokens it signed stop verifying at once (their "
            + "users refresh them). Retiring the active key rotates first.</p>"
        html += HTML.form(
            Self.path + "/retire", csrf: csrf,
            inputs: HTML.input("kid", label: "kid of the key to retire", required: true),
            button: "Retire the key", danger: true)
        return html
    }

    private func pendingEvents(csrf: String, pageToken: String?) async -> String {
        var params: [(String, JSONValue)] = [("maxResults", .int(50))]
        if let pageToken { params.append(("pageToken", .string(pageToken))) }
        var html = "<h2>Events not yet delivered</h2>"
        switch await engine.call("listPendingEvents", params) {
        case let .success(found):
            let rows = (found["events"]?.arrayValue ?? []).map { event -> [String] in
                let id = event["id"]?.stringValue ?? ""
                let fields = ["id", "type", "subject", "attempts", "lastError", "createdAt", "dueAt"]
                return fields.map { field in
                    // A number's own events (phoneNumberLocked) are kept under it: masked, as everywhere here.
                    let text = ConsoleFormat.text(event[field])
                    return field == "subject" && text.hasPrefix("+")
                        ? ConsoleFormat.phone(text, reveal: false) : HTML.escape(text)
                } + [
                    HTML.form(
                        Self.path + "/drop", csrf: csrf, fields: [("eventId", id)],
                        inputs: "<input type=\"checkbox\" id=\"drop-\(HTML.escape(id))\" name=\"confirm\" value=\"1\" "
                            + "required><label for=\"drop-\(HTML.escape(id))\">Yes, never deliver it</label>",
                        button: "Drop", danger: true)
                ]
            }
            html += HTML.table(
                "Each user's later events wait behind its first one not taken",
                headers: ["Event", "Type", "Subject", "Attempts", "Last error", "Recorded", "Next try", "Drop"],
                rows: rows)
            if let next = found["pageToken"]?.stringValue {
                html +=
                    "<p>" + HTML.link(Self.path + "?eventsPage=" + PercentEncoding.encode(next), "More events")
                    + "</p>"
            }
        case let .failure(failure): html += failure.html
        }
        return html
    }

    private func definitions(_ method: String) async -> String {
        switch await engine.call(method) {
        case let .success(result): ConsoleFormat.definitions(result)
        case let .failure(failure): failure.html
        }
    }
}
