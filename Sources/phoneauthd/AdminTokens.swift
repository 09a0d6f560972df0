import PhoneAuthCore

/// server.adminTokens as every door checks them: the admin routes' `Authorization: Bearer` and
/// the console's sign-in.
enum AdminTokens {
    /// The token `presented` is, compared with every one in constant time (so timing says
    /// nothing about which is close); nil if none.
    static func match(_ presented: [UInt8], in tokens: [String]) -> String? {
        var matched: String?
        for token in tokens where SecureBytes.equal(Array(token.utf8), presented) { matched = token }
        return matched
    }
}
