/// One region's and channel's codes sent, delivered (a receipt said so) and entered in the last
/// hour and day, counted from the verifications themselves (the JSON method
/// `getPumpingStatistics`, phoneauthd's /metrics): the pumping defense's scopes count every
/// channel together, and a pumping attack may favour one (voice calls to premium numbers).
package struct ChannelCounts: Sendable, Equatable {
    package var region: String
    package var channel: Channel
    package var sentLastHour: Int64
    package var verifiedLastHour: Int64
    package var sentLastDay: Int64
    package var verifiedLastDay: Int64
    /// Those whose latest message a receipt said arrived (a provider without receipts has none).
    package var deliveredLastHour: Int64 = 0
    package var deliveredLastDay: Int64 = 0

    package var fields: [(String, JSONValue)] {
        [
            ("region", .string(region)), ("channel", .string(channel.rawValue)),
            ("sentLastHour", .int(sentLastHour)), ("verifiedLastHour", .int(verifiedLastHour)),
            ("sentLastDay", .int(sentLastDay)), ("verifiedLastDay", .int(verifiedLastDay)),
            ("deliveredLastHour", .int(deliveredLastHour)), ("deliveredLastDay", .int(deliveredLastDay)),
        ]
    }
}
