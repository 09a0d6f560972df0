/// An engine refusal, shown to the operator as the engine worded it (it never holds secrets).
struct ConsoleFailure: Error, Sendable {
    let message: String

    var html: String { "<p class=\"error\" role=\"alert\">\(HTML.escape(message))</p>" }
}
