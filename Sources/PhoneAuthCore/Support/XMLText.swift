/// Text in XML (or HTML) markup: Twilio's TwiML, and phoneauthd's console pages.
package enum XMLText {
    /// Text as character data or an attribute value: the five markup characters escaped, other
    /// control characters (XML 1.0 has no place for them) as spaces.
    package static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case _ where scalar.value < 32 && scalar != "\n" && scalar != "\t": out += " "
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
