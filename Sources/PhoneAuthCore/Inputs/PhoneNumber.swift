import CPhoneNumbers

/// A phone number that libphonenumber parsed and found valid, in E.164 form.
package struct PhoneNumber: Hashable, Sendable {
    package let e164: String
    package let region: String

    /// The kind of line (mobile, fixed line, premium rate, …) as libphonenumber classifies it.
    package let type: NumberType

    package enum NumberType: Int32, Sendable, CaseIterable {
        case fixedLine = 0, mobile, fixedLineOrMobile, tollFree, premiumRate, sharedCost, voip,
            personalNumber, pager, uan, voicemail, unknown

        /// libphonenumber's name of the type, as configuration and error details spell it.
        package var name: String {
            [
                "FIXED_LINE", "MOBILE", "FIXED_LINE_OR_MOBILE", "TOLL_FREE", "PREMIUM_RATE", "SHARED_COST", "VOIP",
                "PERSONAL_NUMBER", "PAGER", "UAN", "VOICEMAIL", "UNKNOWN",
            ][Int(rawValue)]
        }
    }

    /// Whether libphonenumber knows `code` as a region (CLDR, or "001" for non-geographic numbers).
    package static func isSupportedRegion(_ code: String) -> Bool { pa_phone_region_supported(code) == 1 }

    /// Parses any common human format with a leading "+". Throws `invalidPhoneNumber` whose
    /// details carry the reason, or `missingPhoneNumber` for an empty string.
    package static func parse(_ text: String?) throws(PhoneAuthError) -> PhoneNumber {
        guard let text else { throw PhoneAuthError(.missingPhoneNumber, "A phone number is required.") }
        if text.allSatisfy({ $0 == " " }) {
            throw PhoneAuthError(.missingPhoneNumber, "A phone number is required.")
        }
        guard text.utf8.count <= 64, !text.utf8.contains(0) else {
            throw invalid("notANumber", "The phone number is too long to be a phone number.")
        }
        var result = pa_phone_result()
        pa_phone_parse(text, "ZZ", &result)
        switch Int(result.reason) {
        case Int(PA_PHONE_OK.rawValue):
            let e164 = withUnsafeBytes(of: result.e164) {
                String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            let region = withUnsafeBytes(of: result.region) {
                String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            return PhoneNumber(e164: e164, region: region, type: NumberType(rawValue: result.type) ?? .unknown)
        case Int(PA_PHONE_INVALID_COUNTRY_CODE.rawValue):
            throw invalid(
                "invalidCountryCode",
                "The phone number has no valid country calling code; write it with a leading + and the country code.")
        case Int(PA_PHONE_TOO_SHORT.rawValue):
            throw invalid("tooShort", "The phone number is too short.")
        case Int(PA_PHONE_TOO_LONG.rawValue):
            throw invalid("tooLong", "The phone number is too long.")
        case Int(PA_PHONE_INVALID_LENGTH.rawValue):
            throw invalid("invalidLength", "The phone number has a length no number of its country has.")
        case Int(PA_PHONE_NOT_VALID.rawValue):
            throw invalid("notValid", "The phone number is not a valid number.")
        default:
            throw invalid("notANumber", "The text is not a phone number.")
        }
    }

    private static func invalid(_ reason: String, _ message: String) -> PhoneAuthError {
        PhoneAuthError(.invalidPhoneNumber, message, details: [("reason", .string(reason))])
    }

    /// The number with all but its last four digits hidden, for logs and for showing a user which
    /// number a code went to: "+*******3434".
    package var masked: String { PhoneNumber.mask(e164) }

    package static func mask(_ e164: String) -> String {
        let digits = Array(e164.dropFirst())
        guard digits.count > 4 else { return "+" + String(repeating: "*", count: digits.count) }
        return "+" + String(repeating: "*", count: digits.count - 4) + String(digits.suffix(4))
    }
}
