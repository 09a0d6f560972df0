/// A live session as an operator sees it (the JSON method `listSessions`): what the store keeps
/// of it, never its refresh secret or the secret's hash.
package struct ListedSession: Sendable, Equatable {
    package let sessionId: String
    package let provider: SignInProvider
    package let secondFactor: FactorKind?
    package let authTime: Timestamp
    package let createdAt: Timestamp
    /// When its refresh token last rotated; nil: never refreshed.
    package let lastRefreshedAt: Timestamp?
    /// How many times its refresh token has rotated.
    package let generation: Int64

    var json: JSONValue {
        var fields = JSONObjectBuilder()
        fields.set("sessionId", .string(sessionId))
        fields.set("provider", .string(provider.rawValue))
        fields.set("secondFactor", secondFactor.map { .string($0.rawValue) } ?? .null)
        fields.set("authTime", .string(authTime.rfc3339))
        fields.set("createdAt", .string(createdAt.rfc3339))
        fields.set("lastRefreshedAt", lastRefreshedAt.map { .string($0.rfc3339) })
        fields.set("generation", .int(generation))
        return fields.value
    }
}
