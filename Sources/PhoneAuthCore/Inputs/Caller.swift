/// Who a call is for and from: the tenant it names, the end user's address and the language the
/// end user asked for. Each door builds one per call (the catalogue from `tenantId`, `clientIp`,
/// `userAgent` and `languageCode`; PhoneAuthKit from its view and its arguments) and the services
/// take it in place of loose parameters, so which pool a call works in is decided here alone.
package struct Caller: Sendable {
    /// The tenant the call names ("" names the default pool); nil when it names none.
    package var tenant: TenantID?
    /// The end user's address (per-IP limits, hooks, events); nil when the door does not know it.
    package var address: ClientAddress?
    /// The language the end user asked for (the SMS's, the captcha page's); nil: the default.
    package var language: LanguageTag?

    package init(tenant: TenantID? = nil, address: ClientAddress? = nil, language: LanguageTag? = nil) {
        self.tenant = tenant
        self.address = address
        self.language = language
    }

    /// The pool a call works in when no user's token decides it: the tenant named, else the
    /// default pool. A call that presents a token works in the token's pool, which must be the
    /// named tenant when one is named (``tokenMayBeOf(_:)``).
    package var pool: TenantID { tenant ?? .defaultPool }

    /// Whether a token of `tenant` may be presented by this caller: any when it names none (as
    /// securetoken's refresh names none), else only the named tenant's.
    package func tokenMayBeOf(_ tenant: TenantID) -> Bool { self.tenant.map { $0 == tenant } ?? true }
}
