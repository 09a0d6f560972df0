import PhoneAuthCore
import PhoneAuthKit

/// `POST /phoneauth/v1/{method}`: phoneauth_call over HTTP, the same JSON in and out.
struct OwnMethods: Sendable {
    let auth: PhoneAuth
    let emulator: EmulatorSupport?

    func handle(_ method: PhoneAuthKit.Method, params: JSONValue, clientIp: String, userAgent: String) async -> Reply {
        var params = params
        // The address is the server's to say: a client's own `clientIp` would let it dodge the
        // limits. The User-Agent likewise is the request's, as the hooks are told.
        if method.setsClientIP, case let .object(pairs) = params {
            params = .object(
                pairs.filter { $0.0 != "clientIp" && $0.0 != "userAgent" }
                    + [("clientIp", .string(clientIp)), ("userAgent", .string(userAgent))])
        }
        let (status, json) = await auth.call(method.name, paramsJSON: JSONCodec.serialize(params))
        guard status != 0 else {
            // A call that sent a code answers once development mode lists it.
            if let emulator, let id = (try? JSONCodec.parse(json))?["verificationId"]?.stringValue {
                let tenant = params["tenantId"]?.stringValue.flatMap { try? auth.tenant($0) }
                await emulator.awaitCode(of: id, auth: tenant ?? auth, idToken: params["idToken"]?.stringValue)
            }
            return Reply(text: json, contentType: Reply.jsonType)
        }
        return Self.errorReply((try? JSONCodec.parse(json)) ?? .object([]))
    }

    /// The engine's error object, with the HTTP status its code means (the error catalogue's).
    static func errorReply(_ error: JSONValue) -> Reply {
        let body = error["error"]
        let details = body?["details"]
        let code =
            body?["code"]?.stringValue.flatMap(PhoneAuthCore.PhoneAuthError.Code.init(rawValue:)) ?? .invalidArgument
        let status = code.httpStatus(retryable: details?["retryable"] == .bool(true))
        var headers: [(String, String)] = []
        if status == 429, let seconds = details?["retryAfterSeconds"]?.intValue {
            headers.append(("Retry-After", String(seconds)))
        }
        return Reply(status: status, json: error, headers: headers)
    }

    /// An error object of the engine's shape for what the server itself refuses.
    static func error(_ code: PhoneAuthCore.PhoneAuthError.Code, _ message: String) -> Reply {
        errorReply(PhoneAuthCore.PhoneAuthError(code, message).jsonValue)
    }
}
