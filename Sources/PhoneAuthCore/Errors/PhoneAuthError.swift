/// An error the engine reports to its host: a stable code, its status number, an English message
/// for developers (never holding codes, tokens, secrets or full phone numbers) and details.
package struct PhoneAuthError: Error, Sendable {
    package let code: Code
    package let message: String
    package let details: [(String, JSONValue)]

    package init(_ code: Code, _ message: String, details: [(String, JSONValue)] = []) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// A detail's value, e.g. `reason`.
    package func detail(_ key: String) -> JSONValue? { details.first(where: { $0.0 == key })?.1 }

    /// The error object every failure turns into across the ABI.
    package var jsonValue: JSONValue {
        .object([
            (
                "error",
                .object([
                    ("code", .string(code.name)),
                    ("status", .int(Int64(code.status))),
                    ("message", .string(message)),
                    ("details", .object(details)),
                ])
            )
        ])
    }
}

extension PhoneAuthError {
    /// `error` as a PhoneAuthError; any other error (crypto, the system) becomes internalError
    /// named by its type, which says enough and holds no secret.
    package static func from(_ error: Error, during what: String) -> PhoneAuthError {
        if let error = error as? PhoneAuthError { return error }
        return PhoneAuthError(.internalError, "Internal error in \(what): \(type(of: error)).")
    }
}
