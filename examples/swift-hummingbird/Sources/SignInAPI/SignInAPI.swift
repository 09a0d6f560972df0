import Foundation
import Hummingbird
import NIOCore
import PhoneAuthKit

/// Three routes over a PhoneAuth engine:
///
///     POST /verify   {"phoneNumber": "+16505553434"}             → {"verificationId": "..."}
///     POST /sign-in  {"verificationId": "...", "code": "123456"} → {"uid", "idToken", "refreshToken", "isNewUser"}
///     GET  /me       Authorization: Bearer <ID token>             → {"uid", "phoneNumber"}
///
/// Errors come back as Hummingbird writes them, {"error": {"message": "code: what went wrong"}},
/// with a 4xx status (a 500 says only that the server failed).
public struct SignInAPI: Sendable {
    let auth: PhoneAuth

    public init(auth: PhoneAuth) { self.auth = auth }

    struct VerifyRequest: Decodable { let phoneNumber: String }
    struct VerifyResponse: ResponseEncodable { let verificationId: String }
    struct SignInRequest: Decodable { let verificationId: String; let code: String }
    struct SignInResponse: ResponseEncodable { let uid: String; let idToken: String; let refreshToken: String; let isNewUser: Bool }
    struct MeResponse: ResponseEncodable { let uid: String; let phoneNumber: String? }

    public func addRoutes(to router: Router<SignInContext>) {
        router.post("verify") { request, context -> VerifyResponse in
            let body = try await request.decode(as: VerifyRequest.self, context: context)
            // The async variant: the engine's blocking work stays off the event loop.
            let verification = try await guarded { try await auth.verifyPhoneNumber(body.phoneNumber, clientIP: clientIP(context)) }
            return VerifyResponse(verificationId: verification.verificationID)
        }
        router.post("sign-in") { request, context -> SignInResponse in
            let body = try await request.decode(as: SignInRequest.self, context: context)
            let session = try await guarded {
                let credential = try PhoneAuth.credential(verificationID: body.verificationId, verificationCode: body.code)
                return try await auth.signIn(with: credential, clientIP: clientIP(context))
            }
            return SignInResponse(uid: session.user.uid, idToken: session.idToken, refreshToken: session.refreshToken,
                                  isNewUser: session.isNewUser)
        }
        router.get("me") { request, _ -> MeResponse in
            guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
                throw HTTPError(.unauthorized, message: "An ID token is required.")
            }
            let token = try await guarded { try await auth.verifyIDToken(String(header.dropFirst(7)), checkRevoked: true) }
            return MeResponse(uid: token.uid, phoneNumber: token.phoneNumber)
        }
    }

    private func clientIP(_ context: SignInContext) -> String? {
        context.remoteAddress?.ipAddress
    }

    /// A PhoneAuthError as an HTTP error. The client gets the code and message of its own
    /// mistakes (they never hold a secret); a server failure's message, which can name the
    /// database's host, stays in the server's log.
    private func guarded<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as PhoneAuthError {
            switch error.code {
            case .storageError, .internalError:
                print("sign-in API: \(error)")
                throw HTTPError(.internalServerError, message: "The server could not complete the request.")
            case .tooManyRequests, .quotaExceeded:
                throw HTTPError(.tooManyRequests, message: "\(error.code): \(error.message)")
            case .invalidIdToken, .idTokenRevoked, .userTokenExpired, .userDisabled, .userNotFound:
                throw HTTPError(.unauthorized, message: "\(error.code): \(error.message)")
            default:
                // secondFactorRequired lands here too: a real app would answer its challenge
                // (error.multiFactorChallenge) and add routes for the second step.
                throw HTTPError(.badRequest, message: "\(error.code): \(error.message)")
            }
        }
    }
}

/// The request context of the routes: Hummingbird's, plus the peer's address, which the
/// engine's per-IP limits count by. (Behind a proxy, take the address the proxy forwards.)
public struct SignInContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
