package struct NewOutboxMessage: Sendable {
    package var languageCode: String
    package var askedLanguage: String?
    /// The code, sealed: the text is made when the message is sent, in its channel's words.
    package var sealedCode: [UInt8]
}
