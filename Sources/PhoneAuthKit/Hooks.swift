import PhoneAuthCore

// The engine's hooks (SMS, verification pushes, captcha checks, events) as Swift closures.

/// Hands the engine's messages to a Swift closure.
final class ClosureSender: SMSSender {
    let send: @Sendable (SMSMessage) -> Bool

    init(_ send: @escaping @Sendable (SMSMessage) -> Bool) { self.send = send }

    func send(_ message: PhoneAuthCore.SMSMessage) -> SMSSendResult {
        send(SMSMessage(message)) ? .sent(messageId: nil) : .retryLater(DeliveryProblem(.rejected))
    }
}

/// Hands the engine's events, as values, to a Swift closure.
final class ClosureEventSink: EventSink {
    let handle: @Sendable (Event) -> Void

    init(_ handle: @escaping @Sendable (Event) -> Void) { self.handle = handle }

    func record(_ event: JSONValue) { handle(Event(event)) }
}

/// A blocking hook as a Swift closure on JSON text.
final class ClosureHook: PhoneAuthCore.BlockingHook {
    let hook: @Sendable (String) -> String?

    init(_ hook: @escaping @Sendable (String) -> String?) { self.hook = hook }

    func call(_ event: JSONValue, name: HookName) -> JSONValue? {
        hook(JSONCodec.serialize(event)).flatMap { try? JSONCodec.parse($0) }
    }
}

/// Hands recorded events, as JSON text, to a Swift closure.
final class ClosureEventHandler: EventHandler {
    let deliver: @Sendable (String) -> Bool

    init(_ deliver: @escaping @Sendable (String) -> Bool) { self.deliver = deliver }

    func deliver(_ eventJSON: String) -> Bool { deliver(eventJSON) }
}

/// Hands verification pushes to a Swift closure.
final class ClosurePushSender: PushSender {
    let send: @Sendable (VerificationPush) -> Bool

    init(_ send: @escaping @Sendable (VerificationPush) -> Bool) { self.send = send }

    func send(appToken: String, tokenType: String, payload: JSONValue) -> Bool {
        send(VerificationPush(appToken: appToken, tokenType: tokenType, payloadJSON: JSONCodec.serialize(payload)))
    }
}

/// Asks a Swift closure whether a captcha token is good (and, when asked, how risky the send is).
final class ClosureCaptchaVerifier: CaptchaVerifier {
    let verify: @Sendable (CaptchaCheck) -> CaptchaAnswer?

    init(_ verify: @escaping @Sendable (CaptchaCheck) -> CaptchaAnswer?) { self.verify = verify }

    func verify(token: String, clientIp: String?, phoneNumber: String?) -> CaptchaVerdict? {
        guard let answer = verify(CaptchaCheck(token: token, clientIP: clientIp, phoneNumber: phoneNumber)) else {
            return nil
        }
        return CaptchaVerdict(success: answer.success, score: answer.score, tollFraudRisk: answer.tollFraudRisk).checked
    }
}
