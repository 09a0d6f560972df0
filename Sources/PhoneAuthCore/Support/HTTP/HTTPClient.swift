import Glibc
import CCurl

/// An HTTP POST for a provider.
struct HTTPRequest {
    var url: String
    var body: [UInt8]
    var headers: [String]
    var basicAuth: String?
    var caFile: String?
    var connectTimeoutMs: Int
    var timeoutMs: Int
}

/// How an exchange ended.
enum HTTPExchange {
    case answered(status: Int, body: [UInt8], retryAfterSeconds: Int?)
    /// No answer, why, and libcurl's static text for it (never the URL or a secret).
    case failed(HTTPFailure, description: String)
}

/// Why no answer came. `tls` and `unusable` (a URL libcurl refuses) are faults of the
/// configuration, which retrying will not mend: the next provider should have the message.
enum HTTPFailure {
    case timeout, connection, tls, unusable
}

/// A pool of libcurl handles. Each request borrows one; a handle keeps its connections open, so
/// later requests to the same provider skip the TCP and TLS handshakes.
// @unchecked: the idle curl handles are only taken and given back under `lock`; a handle is used
// by one thread at a time.
final class HTTPClient: @unchecked Sendable {
    private let lock = Lock()
    private var idle: [OpaquePointer] = []

    deinit { for handle in idle { pa_http_client_free(handle) } }

    func post(_ request: HTTPRequest) -> HTTPExchange {
        guard let handle = lock.withLock({ idle.popLast() }) ?? pa_http_client_new() else {
            return .failed(.connection, description: "libcurl could not start")
        }
        defer { lock.withLock { idle.append(handle) } }
        var response = pa_http_response()
        let answered: Bool = request.headers.withCStringArray { headers in
            request.body.withUnsafeBufferPointer { body in
                body.withMemoryRebound(to: CChar.self) { chars in
                    withOptionalCString(request.basicAuth) { auth in
                        withOptionalCString(request.caFile) { ca in
                            var c = pa_http_request(
                                url: nil, body: chars.baseAddress, body_length: body.count,
                                headers: headers, header_count: request.headers.count,
                                basic_auth: auth, ca_file: ca,
                                connect_timeout_ms: request.connectTimeoutMs, timeout_ms: request.timeoutMs)
                            return request.url.withCString { url in
                                c.url = url
                                return pa_http_post(handle, &c, &response) == 0
                            }
                        }
                    }
                }
            }
        }
        defer { pa_http_response_free(&response) }
        guard answered else {
            let code = response.curl_code
            let failure: HTTPFailure =
                response.timed_out != 0
                ? .timeout
                : Self.tlsCodes.contains(code)
                    ? .tls
                    : Self.unusableCodes.contains(code) ? .unusable : .connection
            return .failed(failure, description: String(cString: pa_http_error_text(code)))
        }
        let body = response.body.map { Array(UnsafeRawBufferPointer(start: $0, count: response.body_length)) } ?? []
        return .answered(
            status: Int(response.status), body: body,
            retryAfterSeconds: response.retry_after_seconds >= 0 ? Int(response.retry_after_seconds) : nil)
    }

    /// CURLE_SSL_CONNECT_ERROR 35, SSL_CERTPROBLEM 58, SSL_CIPHER 59, PEER_FAILED_VERIFICATION 60,
    /// SSL_CACERT_BADFILE 77, SSL_ISSUER_ERROR 83.
    private static let tlsCodes: Set<Int32> = [35, 58, 59, 60, 77, 83]
    /// CURLE_UNSUPPORTED_PROTOCOL 1, URL_MALFORMAT 3, NOT_BUILT_IN 4, BAD_FUNCTION_ARGUMENT 43,
    /// UNKNOWN_OPTION 48 (an option this libcurl refuses).
    private static let unusableCodes: Set<Int32> = [1, 3, 4, 43, 48]
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString(body)
}

extension Array where Element == String {
    /// Calls `body` with the strings as a C array of C strings, valid during the call.
    func withCStringArray<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        let copies = map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
