#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PhoneAuthCore

/// A tenant: a pool of users of its own, with settings of its own (docs/API.md, "Tenants").
/// Made with `createTenant(id:_:)`; its users are reached through
/// ``PhoneAuth/tenant(_:)``.
public struct Tenant: Sendable, Hashable {
    /// Its ID: 1 to 64 letters, digits and hyphens; it never changes.
    public let tenantID: String
    /// 4 to 20 letters, digits and hyphens, starting with a letter (not unique).
    public let displayName: String
    /// Its own fictional numbers (E.164) and their fixed codes: no SMS goes to them.
    public let testPhoneNumbers: [String: String]
    /// Where its codes may go, on top of the engine's policy; nil: the engine's alone.
    public let smsRegionPolicy: SMSRegionPolicy?
    /// The second factors its users may enrol; nil: every kind.
    public let secondFactors: Set<SecondFactorKind>?
    /// The app name its SMS texts use; nil: the engine's `sms.appName`.
    public let smsAppName: String?
    /// Its own mode and allow lists of the SMS pumping defense; nil: the engine's alone.
    public let pumping: PumpingSettings?
    /// When it was made.
    public let createdAt: Date
    /// When its name or settings last changed.
    public let updatedAt: Date
    /// The core's tenant, for the hosts that show it as the JSON methods do.
    package let record: PhoneAuthCore.Tenant

    /// The one place a `Tenant` is made: every field from the core's tenant.
    init(_ tenant: PhoneAuthCore.Tenant) {
        record = tenant
        tenantID = tenant.id.text
        displayName = tenant.displayName
        testPhoneNumbers = tenant.settings.testPhoneNumbers
        smsRegionPolicy = tenant.settings.regionPolicy.map(SMSRegionPolicy.init)
        secondFactors = tenant.settings.secondFactors.map { Set($0.map(SecondFactorKind.init)) }
        smsAppName = tenant.settings.smsAppName
        pumping = tenant.settings.pumping.map(PumpingSettings.init)
        createdAt = Date(tenant.createdAt)
        updatedAt = Date(tenant.updatedAt)
    }
}
