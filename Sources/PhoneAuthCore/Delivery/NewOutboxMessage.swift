package struct NewOutboxMessage: Sendable {
    package var languageCode: String
    package var sealedBody: [UInt8]
}
