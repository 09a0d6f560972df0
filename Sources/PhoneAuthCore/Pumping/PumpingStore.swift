/// The pumping defense's decisions, as an operator reads them.
/// Part of `Store`; SQLStore implements it in this folder's SQL (see Storage/Store.swift).
package protocol PumpingStore: AnyObject, Sendable {
    /// Up to `limit` decisions, newest first, starting after `afterId` (nil: the newest).
    func pumpingDecisions(afterId: String?, limit: Int) throws -> [PumpingDecision]
    /// Every country's counts at `now`, by region.
    func pumpingCountries(now: Timestamp) throws -> [CountryCounts]
    /// Codes sent and entered in the last hour and day before `now`, by region and channel.
    func channelCounts(now: Timestamp) throws -> [ChannelCounts]
    /// Ends the block of `scope` at `now` (ScopeCounts.lifted) and keeps the decision `lifted`
    /// that says so; nil, with nothing written, when the scope has no block in force.
    func liftPumpingBlock(_ scope: PumpingScope, now: Timestamp) throws -> PumpingDecision?
}
