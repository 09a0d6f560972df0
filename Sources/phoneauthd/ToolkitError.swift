import PhoneAuthCore
import PhoneAuthKit

/// A failure in Identity Toolkit's shape: `{"error": {"code", "message", "errors": [...]}}`, the
/// message one of the strings Firebase's clients know, then " : " and a detail for people. As
/// Google (and Firebase's emulator) answer, `status` names the canonical code of every failure but
/// a 400 with an Identity Toolkit message, and a refused API key carries Google's `details`.
struct ToolkitError: Error {
    let status: Int
    let code: String
    var detail: String?
    var retryAfterSeconds: Int64?
    /// `errors[0].reason`, when not the one the HTTP status implies.
    var reason: String?
    /// Google's `details` entries (google.rpc.ErrorInfo and the like).
    var details: [JSONValue] = []

    init(_ status: Int, _ code: String, _ detail: String? = nil) {
        self.status = status
        self.code = code
        self.detail = detail
    }

    /// What Google answers a request whose API key is missing or not one of the project's.
    static func invalidApiKey(service: GoogleService) -> ToolkitError {
        let message = "API key not valid. Please pass a valid API key."
        var error = ToolkitError(400, message)
        error.reason = "badRequest"
        error.details = [
            .object([
                ("@type", .string("type.googleapis.com/google.rpc.ErrorInfo")), ("reason", .string("API_KEY_INVALID")),
                ("domain", .string("googleapis.com")), ("metadata", .object([("service", .string(service.name))])),
            ]),
            .object([
                ("@type", .string("type.googleapis.com/google.rpc.LocalizedMessage")), ("locale", .string("en-US")),
                ("message", .string(message)),
            ]),
        ]
        return error
    }

    var reply: Reply {
        let message = detail.map { "\(code) : \($0)" } ?? code
        var error = JSONObjectBuilder()
        error.set("code", .int(Int64(status)))
        error.set("message", .string(message))
        error.set(
            "errors",
            .array([
                .object([
                    ("message", .string(message)), ("domain", .string("global")),
                    ("reason", .string(reason ?? Self.reason(status))),
                ])
            ]))
        error.set("status", canonicalStatus.map { .string($0) })
        if !details.isEmpty { error.set("details", .array(details)) }
        return Reply(
            status: status, json: .object([("error", error.value)]),
            headers: retryAfterSeconds.map { [("Retry-After", String($0))] } ?? [])
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 401: return "authError"
        case 403: return "forbidden"
        case 404: return "notFound"
        case 429: return "rateLimitExceeded"
        case 500...: return "backendError"
        default: return "invalid"
        }
    }

    /// google.rpc.Code's name for the HTTP status. A 400 carrying one of Identity Toolkit's own
    /// messages (INVALID_CODE, …) has none, as Google answers it.
    private var canonicalStatus: String? {
        switch status {
        case 400: return code == "INVALID_ARGUMENT" || !details.isEmpty ? "INVALID_ARGUMENT" : nil
        case 401: return "UNAUTHENTICATED"
        case 403: return "PERMISSION_DENIED"
        case 404: return "NOT_FOUND"
        case 409: return "ALREADY_EXISTS"
        case 429: return "RESOURCE_EXHAUSTED"
        case 500: return "INTERNAL"
        case 501: return "UNIMPLEMENTED"
        case 503: return "UNAVAILABLE"
        default: return nil
        }
    }

    /// The engine's error (its stable code, message and details) as the message Firebase's clients
    /// map to the same meaning, from the error catalogue.
    init(_ error: PhoneAuthCore.PhoneAuthError) {
        let (name, status) = error.code.firebase(
            reason: error.detail("reason")?.stringValue, retryable: error.detail("retryable") == .bool(true))
        self.init(status, name, error.message)
        retryAfterSeconds = error.detail("retryAfterSeconds")?.intValue
        if error.code == .blockingFunctionError {
            // As Identity Toolkit words it: the SDKs take the function's message out of this JSON.
            let body: JSONValue = .object([
                ("message", .string(error.message)),
                ("status", .string(error.detail("status")?.stringValue ?? "PERMISSION_DENIED")),
            ])
            detail = "HTTP Cloud Function returned an error: " + JSONCodec.serialize(.object([("error", body)]))
        }
    }

    /// Any failure of a request: the engine's (through PhoneAuthKit), the request reader's, or an
    /// unexpected one (an internal error whose message names no secret).
    static func from(_ error: Error) -> ToolkitError {
        if let error = error as? ToolkitError { return error }
        if let error = error as? PhoneAuthError { return ToolkitError(error.core) }
        return ToolkitError(PhoneAuthCore.PhoneAuthError.from(error, during: "the request"))
    }
}
