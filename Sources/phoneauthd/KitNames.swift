import PhoneAuthKit

// PhoneAuthCore (whose JSON and configuration readers the server uses) has package-wide types of
// the same names: in this module the names mean PhoneAuthKit's, the API the server drives.
typealias PhoneAuthError = PhoneAuthKit.PhoneAuthError
typealias SignInResult = PhoneAuthKit.SignInResult
typealias PhoneCredential = PhoneAuthKit.PhoneCredential
typealias SMSMessage = PhoneAuthKit.SMSMessage
