/// A hook's implementation: the host's function in process, or an HTTP endpoint.
package protocol BlockingHook: Sendable {
    /// The hook's answer to `event` (HOOKS.md's JWT payload): a response object, or
    /// `{"error": {"status", "message"}}` to refuse. nil when it failed to answer: it raised,
    /// could not be reached, timed out, or answered what is not a JSON object.
    func call(_ event: JSONValue, name: HookName) -> JSONValue?
}
