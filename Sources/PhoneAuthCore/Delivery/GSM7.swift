/// The GSM 03.38 default alphabet, which an SMS carries at 7 bits a character; a text with any
/// other character goes as UCS-2 (Vonage's `type=unicode`).
enum GSM7 {
    /// The basic table (one septet each); ESC (0x1B) itself is not a character of a text.
    static let basic: Set<Unicode.Scalar> = Set((
        "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
            + "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà").unicodeScalars)
    /// The extension table: each costs two septets (ESC and the character).
    static let extended: Set<Unicode.Scalar> = Set("^{}\\[~]|€\u{0C}".unicodeScalars)

    /// Whether `text` (character by character: "\r\n" is two) can be sent in the GSM-7 alphabet.
    static func canEncode(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { basic.contains($0) || extended.contains($0) }
    }
}
