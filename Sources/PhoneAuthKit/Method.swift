import PhoneAuthCore

/// One of the engine's JSON methods (`call(_:paramsJSON:)`, docs/API.md "Methods"), as the
/// engine's catalogue declares it: a server that offers them over HTTP takes who may call each
/// and whether it sets the caller's address from here.
public struct Method: Sendable {
    /// Who may call a method through a server.
    public enum Access: String, Sendable {
        /// An app, for its end user.
        case client
        /// Only a caller with an admin credential: it manages users or reveals state.
        case admin
        /// Never over a network: only through the library and the `phoneauth` command.
        case library
    }

    /// The method's name.
    public let name: String
    /// Who may call it.
    public let access: Access
    /// Whether a server sets `clientIp` (the end user's address, which the per-IP limits count)
    /// from the connection, replacing any the caller sent.
    public let setsClientIP: Bool
    /// The parameters it takes.
    public let parameters: Set<String>

    init(_ operation: Operation) {
        name = operation.name
        access = Access(rawValue: operation.access.rawValue) ?? .admin
        setsClientIP = operation.setsClientIp
        parameters = operation.parameters
    }
}
