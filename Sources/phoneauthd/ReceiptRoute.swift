import HTTPTypes
import Hummingbird
import NIOCore
import PhoneAuthCore
import PhoneAuthKit

/// `POST /phoneauth/v1/receipts/{provider}`: a provider's delivery callback, handed whole to the
/// engine's `reportDelivery`, which checks its signature against the `sms.providers` entry named
/// `provider` and applies its statuses. No API key or admin token: the provider's signature is
/// the authentication. The URL the engine is given is the one the provider called (Twilio signs
/// it): `server.publicUrl` with the request's path and query, else the Host header's. A GET is
/// Meta's check of the callback URL, answered with its challenge through `confirmReceiptSubscription`.
struct ReceiptRoute: Sendable {
    static let prefix = "/phoneauth/v1/receipts/"
    /// Callbacks are small; a larger body is not one.
    static let maxBodyBytes = 64 * 1024

    let auth: PhoneAuth
    let config: ServerConfig

    func handle(_ request: inout Request) async -> Reply {
        guard request.method == .post || request.method == .get else { return Server.wrongMethod("GET, POST") }
        let provider = String(request.uri.path.dropFirst(Self.prefix.count))
        guard Self.isName(provider) else {
            return refusal("The path must name an sms.providers entry: \(Self.prefix){name}.", .unknownProvider)
        }
        guard let url = publicURL(request) else {
            return refusal("The request has no Host header; set server.publicUrl.", .malformed)
        }
        if request.method == .get {
            let params: JSONValue = .object([("provider", .string(provider)), ("url", .string(url))])
            return answer(await auth.call("confirmReceiptSubscription", paramsJSON: JSONCodec.serialize(params))) {
                Reply(text: $0["challenge"]?.stringValue ?? "", contentType: "text/plain; charset=utf-8")
            }
        }
        let bytes: [UInt8]
        do {
            bytes = Array(try await request.collectBody(upTo: Self.maxBodyBytes).readableBytesView)
        } catch is NIOTooManyBytesError {
            return refusal("The body is larger than \(Self.maxBodyBytes) bytes.", .tooLarge)
        } catch {
            // Cut off (server.bodyTimeoutSeconds, or the sender gone): logged as such, read by nobody.
            return refusal("The body did not arrive whole.", .incomplete)
        }
        guard let body = String(validating: bytes, as: UTF8.self) else {
            return refusal("The body is not UTF-8 text.", .malformed)
        }
        let params: JSONValue = .object([
            ("provider", .string(provider)), ("url", .string(url)), ("headers", .object(headers(request))),
            ("body", .string(body)),
        ])
        return answer(await auth.call("reportDelivery", paramsJSON: JSONCodec.serialize(params))) { result in
            Self.reply(to: result)
        }
    }

    /// What the provider is told: each receipt's message, status and whether it applied (not
    /// the verification it belongs to: the caller holds no token). When every receipt names a
    /// message the engine has not recorded yet (a callback faster than the send's record), a 503
    /// asks the provider to send it again later.
    static func reply(to result: JSONValue) -> Reply {
        guard case let .array(applied)? = result["receipts"] else {
            return Reply(text: "{}", contentType: Reply.jsonType)
        }
        let shown: JSONValue = .object([
            (
                "receipts",
                .array(
                    applied.map { receipt in
                        .object(
                            ["messageId", "status", "applied", "reason"].compactMap { key in
                                receipt[key].map { (key, $0) }
                            })
                    })
            )
        ])
        var reply = Reply(text: JSONCodec.serialize(shown), contentType: Reply.jsonType)
        let unknown = AppliedReceipt.Unapplied.unknownMessage.rawValue
        if !applied.isEmpty, applied.allSatisfy({ $0["reason"]?.stringValue == unknown }) {
            reply.status = 503
            reply.headers.append(("Retry-After", "5"))
        }
        return reply
    }

    /// The method's result as `success` makes it (nil: its JSON as it is), or its refusal with the
    /// status that suits a provider.
    private func answer(_ outcome: (status: Int32, json: String), success: (JSONValue) -> Reply?) -> Reply {
        let parsed = (try? JSONCodec.parse(outcome.json)) ?? .object([])
        guard outcome.status != 0 else {
            return success(parsed) ?? Reply(text: outcome.json, contentType: Reply.jsonType)
        }
        var reply = OwnMethods.errorReply(parsed)
        if let code = Self.status(of: parsed) { reply.status = code }
        return reply
    }

    /// A provider entry's name as a path segment may hold it: letters, digits, '_', '-' and '.'.
    static func isName(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy {
                ASCII.isLetterOrDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: ".")
            }
    }

    /// The HTTP status of the engine's refusal (ReceiptRefusal.httpStatus; 404 for another
    /// refusal of the provider); nil keeps the catalogue's.
    static func status(of error: JSONValue) -> Int? {
        let details = error["error"]?["details"]
        if let refusal = details?["reason"]?.stringValue.flatMap(ReceiptRefusal.init(rawValue:)) {
            return refusal.httpStatus
        }
        return details?["field"]?.stringValue == "provider" ? 404 : nil
    }

    /// The URL the provider called: the configured public root (behind a proxy, the proxy's),
    /// else this listener's scheme and the Host header, then the request target as received.
    func publicURL(_ request: Request) -> String? {
        let target = request.head.path ?? request.uri.path
        if var root = config.publicUrl {
            while root.hasSuffix("/") { root.removeLast() }
            return root + target
        }
        guard let host = request.head.authority, !host.isEmpty else { return nil }
        return (config.certificateFile == nil ? "http://" : "https://") + host + target
    }

    /// Every header as received (the Host header too, which HTTP/1 parsing moves out of the
    /// fields), a repeated one joined with ", " as HTTP allows.
    private func headers(_ request: Request) -> [(String, JSONValue)] {
        var pairs: [(String, String)] = []
        if let host = request.head.authority { pairs.append(("Host", host)) }
        for field in request.headers {
            if let i = pairs.firstIndex(where: { $0.0.lowercased() == field.name.canonicalName }) {
                pairs[i].1 += ", " + field.value
            } else {
                pairs.append((field.name.rawName, field.value))
            }
        }
        return pairs.map { ($0.0, .string($0.1)) }
    }

    /// A refusal of the server's own, in the engine's error shape.
    private func refusal(_ message: String, _ reason: ReceiptRefusal) -> Reply {
        var reply = OwnMethods.errorReply(
            PhoneAuthCore.PhoneAuthError(.invalidArgument, message, details: [("reason", .string(reason.rawValue))])
                .jsonValue)
        reply.status = reason.httpStatus
        return reply
    }
}
