/// The send limits a new verification is checked against in its transaction (0: no limit).
/// Test numbers have none.
package struct SendLimits: Sendable {
    /// The counts of voice calls, kept on top of the others.
    package struct Voice: Sendable {
        package var perNumberPerHour: Int
        package var perProjectPerDay: Int
    }

    package var phone: String
    package var region: String
    package var clientIp: String?
    package var perNumberPerHour: Int
    package var perIpPerHour: Int
    package var perProjectPerDay: Int
    package var perRegionPerDay: Int
    package var regionBurstPerHour: Int
    /// nil unless the send is a call.
    package var voice: Voice?
    /// nil when the pumping defense does not judge the send.
    package var pumping: PumpingCheck?
}
