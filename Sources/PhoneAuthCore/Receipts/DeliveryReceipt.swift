/// A provider's later word on a message it accepted, read from its callback once the callback's
/// signature checked out.
package struct DeliveryReceipt: Sendable, Equatable {
    package enum Status: String, Sendable {
        /// Handed on to the carrier or WhatsApp (says nothing new after the send).
        case sent
        /// On the phone (WhatsApp's `read` and a voice call that was answered count as delivered).
        case delivered
        /// Never arrived: the provider's `errorCode` says why when it gave one.
        case failed

        /// The state a delivery this receipt moves is left in.
        var deliveryState: DeliveryState {
            switch self {
            case .sent: .sent
            case .delivered: .delivered
            case .failed: .failed
            }
        }
    }

    /// The provider's ID of the message (Twilio's MessageSid or CallSid, the wamid, Vonage's
    /// message_uuid or call uuid).
    package var messageId: String
    package var status: Status
    /// The provider's own error code (Twilio's ErrorCode, Meta's errors[0].code, Vonage's error type or status).
    package var errorCode: String?
    /// When the provider says it happened, if it says.
    package var at: Timestamp?

    package init(messageId: String, status: Status, errorCode: String? = nil, at: Timestamp? = nil) {
        self.messageId = messageId
        self.status = status
        self.errorCode = errorCode
        self.at = at
    }
}

/// A provider's callback as it reached the host: the URL it was sent to (Twilio signs it), its
/// headers and its raw body.
package struct ReceiptRequest: Sendable {
    package var url: String
    /// Header names in any case.
    package var headers: [(String, String)]
    package var body: [UInt8]

    package init(url: String, headers: [(String, String)], body: [UInt8]) {
        self.url = url
        self.headers = headers
        self.body = body
    }

    static let maxBodyBytes = 65_536
    static let maxHeaders = 100
    static let maxHeaderBytes = 8192

    /// A callback as reportDelivery's `url`, `headers` and `body` give it.
    package static func read(_ p: ObjectReader) throws(PhoneAuthError) -> ReceiptRequest {
        func bad(_ field: String, _ problem: String) -> PhoneAuthError {
            PhoneAuthError(.invalidArgument, "The field '\(field)' \(problem).", details: [("field", .string(field))])
        }
        guard let url = try p.string("url"), url.hasPrefix("https://") || url.hasPrefix("http://"),
            url.utf8.count <= 2048
        else { throw bad("url", "must be the URL the provider called (http or https, at most 2048 bytes)") }
        guard let body = try p.string("body"), body.utf8.count <= maxBodyBytes else {
            throw bad("body", "must be the callback's body as text, at most \(maxBodyBytes) bytes")
        }
        var headers: [(String, String)] = []
        if let given = try p.object("headers") {
            guard given.entries.count <= maxHeaders else {
                throw bad("headers", "may hold at most \(maxHeaders) headers")
            }
            for (name, value) in given.entries {
                guard case let .string(text) = value, text.utf8.count + name.utf8.count <= maxHeaderBytes else {
                    throw bad(
                        "headers",
                        "must map each header's name to its value, a string of at most \(maxHeaderBytes) bytes")
                }
                headers.append((name, text))
            }
        }
        return ReceiptRequest(url: url, headers: headers, body: Array(body.utf8))
    }

    /// The first header named `name`, whatever its case.
    package func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}
