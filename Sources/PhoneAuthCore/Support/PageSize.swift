/// How many items a page of a typed list method may ask for: the JSON methods' `maxResults` rule,
/// for the doors that do not read JSON.
enum PageSize {
    static let allowed: ClosedRange<Int> = 1...1000

    /// Refuses `maxResults` as the JSON methods do when it is out of range.
    static func check(_ maxResults: Int) throws(PhoneAuthError) {
        guard allowed.contains(maxResults) else {
            throw PhoneAuthError(
                .invalidArgument,
                "The field 'maxResults' must be between \(allowed.lowerBound) and \(allowed.upperBound); "
                    + "it is \(maxResults).",
                details: [("field", .string("maxResults"))])
        }
    }
}
