/// A code's message handed to a provider: a text, a WhatsApp authentication message or a call.
package struct SMSMessage: Sendable {
    package let to: String
    /// The channel it goes by.
    package let channel: Channel
    /// The text: the SMS, or what a voice call says (for WhatsApp, the SMS text, for a host's
    /// sender that needs one; the template carries the code).
    package let body: String
    /// The code alone: WhatsApp's template takes it as a parameter.
    package let code: String
    package let languageCode: String
    package let verificationId: String
    /// Which of the verification's deliveries it is: 1, then one more for each resend or fallback.
    package let delivery: Int
    /// What the code is for (signIn, enroll, mfaSignIn, temporaryProof).
    package let purpose: String
    /// The body's encoding and segments: what the message costs.
    package let cost: SMSCost

    package init(
        to: String, channel: Channel = .sms, body: String, code: String, languageCode: String,
        verificationId: String, delivery: Int = 1, purpose: String
    ) {
        self.to = to
        self.channel = channel
        self.body = body
        self.code = code
        self.languageCode = languageCode
        self.verificationId = verificationId
        self.delivery = delivery
        self.purpose = purpose
        cost = SMSCost(of: body)
    }
}

/// Why a message was not sent, as events and the store tell it. Never holds a secret, a code or
/// a whole phone number.
package struct DeliveryProblem: Sendable, Equatable {
    package var reason: DeliveryFailureReason
    /// The provider's own error code (Twilio's `code`, Vonage's `status`), when it gave one.
    package var providerCode: String?
    package var httpStatus: Int?
    /// How long the provider asked us to wait (Retry-After), in milliseconds.
    package var retryAfterMs: Int64?
    /// What went wrong, in libcurl's static words (e.g. "Couldn't connect to server").
    package var detail: String?

    package init(
        _ reason: DeliveryFailureReason, providerCode: String? = nil, httpStatus: Int? = nil,
        retryAfterMs: Int64? = nil,
        detail: String? = nil
    ) {
        self.reason = reason
        self.detail = detail
        self.providerCode = providerCode
        self.httpStatus = httpStatus
        self.retryAfterMs = retryAfterMs
    }
}

/// What one provider did with a message.
package enum SMSSendResult: Sendable, Equatable {
    /// Accepted for delivery; the provider's ID for the message when it gave one.
    case sent(messageId: String?)
    /// Not now (rate limited, server error, timeout, no connection): send it again later.
    case retryLater(DeliveryProblem)
    /// The number cannot receive SMS: no retry, no other provider.
    case invalidNumber(DeliveryProblem)
    /// The provider refused us (credentials, account, an answer we do not understand): the next
    /// provider gets the message at once.
    case providerFault(DeliveryProblem)
}

/// Delivers SMS. Called on the engine's delivery threads: one message at a time unless
/// `sms.concurrency` is above 1, then up to that many at once.
package protocol SMSSender: AnyObject, Sendable {
    func send(_ message: SMSMessage) -> SMSSendResult
}
