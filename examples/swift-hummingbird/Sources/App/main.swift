import Foundation
import Hummingbird
import PhoneAuthKit
import SignInAPI

// PHONEAUTH_DATABASE: the SQLite file (default phoneauth.db); PORT: where to listen (8080).
// PHONEAUTH_DEMO=1: the test number +16505551234 signs in with 123456 and other numbers' codes
// are printed on stderr (the console provider) — never set it on a real deployment. Without it,
// each SMS goes to the sender below: replace it with your gateway.
let environment = ProcessInfo.processInfo.environment
var configuration = PhoneAuth.Configuration(database: environment["PHONEAUTH_DATABASE"] ?? "phoneauth.db")
if environment["PHONEAUTH_DEMO"] == "1" {
    configuration.testPhoneNumbers = ["+16505551234": "123456"]
    configuration.sms.provider = "console"
}
let auth = try PhoneAuth(configuration: configuration)
auth.setSMSSender { message in
    // Hand message.to and message.body to your SMS gateway; return false to have it retried.
    print("no SMS gateway configured: a code for \(message.to.suffix(4)) was not sent")
    return false
}
defer { auth.close() }

let router = Router(context: SignInContext.self)
SignInAPI(auth: auth).addRoutes(to: router)
let app = Application(router: router,
                      configuration: .init(address: .hostname("127.0.0.1", port: Int(environment["PORT"] ?? "") ?? 8080)))
try await app.runService()
