import PhoneAuthCore
import PhoneAuthKit

/// The engine's JSON methods, as the console calls them (with the host's rights: the operator
/// proved an admin token to sign in).
struct ConsoleEngine: Sendable {
    let auth: PhoneAuth

    /// The method's result, or its error's message.
    func call(_ method: String, _ params: [(String, JSONValue)] = []) async -> Result<JSONValue, ConsoleFailure> {
        let (status, text) = await auth.call(method, paramsJSON: JSONCodec.serialize(.object(params)))
        let json = (try? JSONCodec.parse(text)) ?? .object([])
        guard status == 0 else {
            return .failure(ConsoleFailure(message: json["error"]?["message"]?.stringValue ?? "The call failed."))
        }
        return .success(json)
    }
}
