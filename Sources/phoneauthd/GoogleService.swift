/// Google's services in the dialect: each has its host; the v3 service lives under a path of
/// www.googleapis.com.
enum GoogleService: CaseIterable {
    case legacyIdentityToolkit, identityToolkit, secureToken

    var host: String {
        switch self {
        case .legacyIdentityToolkit: return "www.googleapis.com"
        case .identityToolkit: return "identitytoolkit.googleapis.com"
        case .secureToken: return "securetoken.googleapis.com"
        }
    }

    /// The service's name in Google's error details (the v3 API is Identity Toolkit too).
    var name: String { self == .secureToken ? "securetoken.googleapis.com" : "identitytoolkit.googleapis.com" }
}
