/// A limit as errors and events name it: its configuration key.
package enum LimitName: String, Sendable {
    case smsPerNumberPerHour
    case smsPerIpPerHour
    case smsPerProjectPerDay
    case smsPerRegionPerDay
    case regionBurstPerHour
    case wrongCodesPerIpPer5Minutes
    case appChecksPerIpPerHour
    case voicePerNumberPerHour
    case voicePerProjectPerDay
    case maxConsecutiveFailures
}
