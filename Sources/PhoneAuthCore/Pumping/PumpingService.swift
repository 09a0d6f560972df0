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

    /// Ends the block the defense put on the scope `kind` `name` names (as a decision shows them):
    /// whether one was in force. The lift is kept as a decision with action `lifted`.
    package func liftBlock(kind: String?, name: String?) throws -> Bool {
        guard let kind = kind.flatMap(PumpingScope.Kind.init(rawValue:)) else {
            throw PhoneAuthError(
                .invalidArgument,
                "The field 'scopeKind' must be one of "
                    + PumpingScope.Kind.allCases.map(\.rawValue).joined(separator: ", ") + ".",
                details: [("field", .string("scopeKind"))])
        }
        guard let name, !name.isEmpty, name.utf8.count <= 64 else {
            throw PhoneAuthError(
                .invalidArgument, "The field 'scope' must be 1 to 64 bytes, as a decision names it.",
                details: [("field", .string("scope"))])
        }
        return try store.liftPumpingBlock(PumpingScope(kind: kind, name: name), now: clock.now()) != nil
    }

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
