/// What the pumping defense decided and counted, as an operator reads it: its decisions, newest
/// first, a page at a time (the JSON method `listPumpingDecisions`, `phoneauth pumping`), and each
/// country's codes sent and entered (`getPumpingStatistics`, phoneauthd's /metrics).
package final class PumpingService: Sendable {
    private let store: any PumpingStore
    private let clock: Clock

    init(store: any PumpingStore, clock: Clock) {
        self.store = store
        self.clock = clock
    }

    /// Every country the defense has counted, by region.
    package func countries() throws -> [CountryCounts] { try store.pumpingCountries(now: clock.now()) }

    /// Codes sent and entered per region and channel.
    package func channels() throws -> [ChannelCounts] { try store.channelCounts(now: clock.now()) }

    /// Up to `maxResults` decisions after the page `pageToken` names (nil: the newest), and the
    /// next page's token when there may be more.
    package func decisions(
        maxResults: Int, pageToken: String?
    ) throws -> (decisions: [PumpingDecision], nextPageToken: String?) {
        try PageSize.check(maxResults)
        if let pageToken, !SortableID.isWellFormed(pageToken, randomBytes: PumpingDecision.idRandomBytes) {
            throw PhoneAuthError(
                .invalidArgument, "The field 'pageToken' is not a page token this method gave.",
                details: [("field", .string("pageToken"))])
        }
        let decisions = try store.pumpingDecisions(afterId: pageToken, limit: maxResults)
        return (decisions, decisions.count == maxResults ? decisions.last?.id : nil)
    }
}
