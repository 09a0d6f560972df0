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

    /// The first header named `name`, whatever its case.
    package func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}
