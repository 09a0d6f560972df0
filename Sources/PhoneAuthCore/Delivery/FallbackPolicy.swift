/// What the store needs to decide a fallback where it happens (a message refused, a receipt
/// saying it failed, no receipt in time): how long a sent message waits for a receipt, and the
/// counts a fallback send is checked against and counted in (the project's, the region's and
/// its pumping breaker, and a call's own; the number's count is its verification's deliveries;
/// a fallback has no caller, so no IP).
package struct FallbackPolicy: Sendable {
    /// 0: only a failure falls back.
    package var afterMilliseconds: Int64
    package var perProjectPerDay: Int
    package var perRegionPerDay: [String: Int] = [:]
    package var regionBurstPerHour = 0
    package var voice: SendLimits.Voice

    package init(afterMilliseconds: Int64, perProjectPerDay: Int, voice: SendLimits.Voice) {
        self.afterMilliseconds = afterMilliseconds
        self.perProjectPerDay = perProjectPerDay
        self.voice = voice
    }

    /// No fallback waits on a receipt, and none is limited (tests of the outbox alone).
    package static let none = FallbackPolicy(
        afterMilliseconds: 0, perProjectPerDay: 0, voice: SendLimits.Voice(perNumberPerHour: 0, perProjectPerDay: 0))

    /// The limits a fallback to `channel` for `phone` is checked against.
    func limits(phone: String, channel: Channel) -> SendLimits {
        let region = (try? PhoneNumber.parse(phone))?.region ?? ""
        return SendLimits(
            phone: phone, region: region, clientIp: nil, perNumberPerHour: 0, perIpPerHour: 0,
            perProjectPerDay: perProjectPerDay, perRegionPerDay: perRegionPerDay[region] ?? 0,
            regionBurstPerHour: regionBurstPerHour, voice: channel == .voice ? voice : nil)
    }
}
