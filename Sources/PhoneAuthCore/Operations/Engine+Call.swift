/// The one entry point every host shares: a method name and its JSON parameters in, a status and
/// the result or error object out (phoneauth_call, phoneauthd's /phoneauth/v1, the CLI).
extension Engine {
    /// The operation of that name, if the catalogue has one (docs/API.md lists them).
    package static func operation(named name: String) -> Operation? { OperationCatalogue.byName[name] }

    /// Every operation, in the catalogue's order.
    package static var operations: [Operation] { OperationCatalogue.all }

    /// Runs `method` with `params` (a JSON object); returns 0 and the result, or the error's
    /// status and the error object. Never throws.
    package func call(_ method: String, params: JSONValue) -> (status: Int32, result: JSONValue) {
        guard let operation = OperationCatalogue.byName[method] else {
            let error = PhoneAuthError.unknownMethod(method)
            return (error.code.status, error.jsonValue)
        }
        do {
            let reader = try ObjectReader(params)
            try reader.rejectUnknown(operation.parameters)
            try reader.rejectNull(except: operation.nullable)
            return (0, try operation.run(self, try operation.caller(reader), reader))
        } catch {
            let failure = PhoneAuthError.from(error, during: method)
            return (failure.code.status, failure.jsonValue)
        }
    }
}

extension PhoneAuthError {
    /// There is no method of that name (quoted only when it is a plain name).
    package static func unknownMethod(_ method: String) -> PhoneAuthError {
        let name = Echo.quoted(method, or: "so (the name is not shown: it is not a plain name)")
        return PhoneAuthError(
            .unknownMethod, "There is no method named \(name); docs/API.md lists them.",
            details: Echo.isQuotable(method) ? [("method", .string(method))] : [])
    }
}
