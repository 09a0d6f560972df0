/// An event that tells of one delivery attempt (`codeSent` or `deliveryFailed`), held with its
/// outcome until the outcome is in the store, then handed to the event sink.
struct DeliveryEvent {
    var name: EventName
    var time: Timestamp
    var fields: [(String, JSONValue?)]

    /// What the sink is told of `message`'s attempt number `attempt`; nil when nothing was tried
    /// (every provider skipped: providerSkipped said so).
    init?(message: OutboxMessage, report: DeliveryReport, attempt: Int, willRetry: Bool, at time: Timestamp) {
        var fields: [(String, JSONValue?)] = [
            ("phoneNumber", .string(PhoneNumber.mask(message.phone))), ("channel", .string(message.channel.rawValue)),
            ("languageCode", .string(report.language ?? message.languageCode)),
            ("attempt", .int(Int64(attempt))), ("provider", report.provider.map { .string($0) }),
            ("encoding", report.cost.map { .string($0.encoding.rawValue) }),
            ("segments", report.cost.map { .int(Int64($0.segments)) }),
        ]
        if !report.failedOver.isEmpty { fields.append(("failedOver", .array(report.failedOver.map { .string($0) }))) }
        switch report.outcome {
        case let .sent(messageId):
            name = .codeSent
            fields.append(("messageId", messageId.map { .string($0) }))
        case let .failed(problem), let .undeliverable(problem):
            name = .deliveryFailed
            fields += Self.fields(of: problem) + [("willRetry", .bool(willRetry))]
        case .noProvider:
            return nil
        }
        self.time = time
        self.fields = fields
    }

    private static func fields(of problem: DeliveryProblem) -> [(String, JSONValue?)] {
        [
            ("reason", .string(problem.reason.rawValue)), ("providerCode", problem.providerCode.map { .string($0) }),
            ("httpStatus", problem.httpStatus.map { .int(Int64($0)) }), ("detail", problem.detail.map { .string($0) }),
            ("retryAfterSeconds", problem.retryAfterMs.map { .int(($0 + 999) / 1000) }),
        ]
    }
}
