import Foundation
import Hummingbird
import PhoneAuthKit
import SignInAPI

// PHONEAUTH_DATABASE: the SQLite file (default phoneauth.db); PORT: where to listen (8080).
// A test number, +16505551234 with code 123456, signs in without SMS; other numbers' codes are
// printed by the console provider (plug in a real sender with auth.setSMSSender in production).
let environment = ProcessInfo.processInfo.environment
var configuration = PhoneAuth.Configuration(database: environment["PHONEAUTH_DATABASE"] ?? "phoneauth.db")
configuration.testPhoneNumbers = ["+16505551234": "123456"]
configuration.sms.provider = "console"
let auth = try PhoneAuth(configuration: configuration)
defer { auth.close() }

let router = Router(context: SignInContext.self)
SignInAPI(auth: auth).addRoutes(to: router)
let app = Application(router: router,
                      configuration: .init(address: .hostname("127.0.0.1", port: Int(environment["PORT"] ?? "") ?? 8080)))
try await app.runService()
