/// How many items a page of a typed list method may ask for: the JSON methods' `maxResults` rule,
/// for the doors that do not read JSON.
enum PageSize {
    static let allowed: ClosedRange<Int> = 1...1000

    /// `maxResults`, or the JSON methods' refusal of it.
    static func checked(_ maxResults: Int) throws(PhoneAuthError) -> Int {
        guard allowed.contains(maxResults) else {
            throw PhoneAuthError(
                .invalidArgument,
                "The field 'maxResults' must be between \(allowed.lowerBound) and \(allowed.upperBound); "
                    + "it is \(maxResults).",
                details: [("field", .string("maxResults"))])
        }
        return maxResults
    }
}
