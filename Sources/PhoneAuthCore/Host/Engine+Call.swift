/// The one entry point every host shares: a method name and its JSON parameters in, a status and
/// the result or error object out (phoneauth_call, phoneauthd's /phoneauth/v1, the CLI).
extension Engine {
    /// Whether `call` knows a method of that name (docs/API.md lists them).
    package static func hasMethod(_ name: String) -> Bool { Methods.table[name] != nil }

    /// Runs `method` with `params` (a JSON object); returns 0 and the result, or the error's
    /// status and the error object. Never throws.
    package func call(_ method: String, params: JSONValue) -> (status: Int32, result: JSONValue) {
        guard let handler = Methods.table[method] else {
            let error = PhoneAuthError(.unknownMethod,
                                       "There is no method named \(Echo.quoted(method, or: "so (the name is not shown: it is not a plain name)")); docs/API.md lists them.",
                                       details: Echo.isQuotable(method) ? [("method", .string(method))] : [])
            return (error.code.status, error.jsonValue)
        }
        do {
            return (0, try handler(self, try ObjectReader(params)))
        } catch {
            let failure = PhoneAuthError.from(error, during: method)
            return (failure.code.status, failure.jsonValue)
        }
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
