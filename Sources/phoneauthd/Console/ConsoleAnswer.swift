/// What a section answers: a page (its title and body, HTML), or after an action a redirect to
/// the page that shows its outcome (`notice`, said there).
enum ConsoleAnswer: Sendable {
    case page(title: String, body: String, status: Int = 200)
    case redirect(path: String, notice: String)

    /// No such page or action in a section.
    static let notFound = ConsoleAnswer.page(title: "Not found", body: "<p>No such page.</p>", status: 404)
}
