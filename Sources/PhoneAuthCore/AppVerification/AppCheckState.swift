/// Whether an app check may still be used, as the `app_checks.state` column holds it.
enum AppCheckState: String, Sendable, CaseIterable {
    case active
    case used
}
