/// The send limits a new verification is checked against in its transaction (0: no limit).
/// Test numbers have none.
package struct SendLimits: Sendable {
    package var region: String
    package var clientIp: String?
    package var perNumberPerHour: Int
    package var perIpPerHour: Int
    package var perProjectPerDay: Int
    package var perRegionPerDay: Int
    package var regionBurstPerHour: Int
}
