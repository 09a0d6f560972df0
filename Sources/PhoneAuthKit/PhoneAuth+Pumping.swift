import PhoneAuthCore

/// The SMS pumping defense's decisions, typed (the JSON method `listPumpingDecisions`).
extension PhoneAuth {
    /// Up to `maxResults` (1 to 1000) decisions, newest first, from where `pageToken` (a previous
    /// page's `nextPageToken`) says; `nextPageToken` is nil on the last page. Admin.
    public func pumpingDecisions(
        maxResults: Int = 100, pageToken: String? = nil
    ) throws(PhoneAuthError) -> (decisions: [PumpingDecision], nextPageToken: String?) {
        let page = try run("listPumpingDecisions") {
            try $0.pumping.decisions(maxResults: maxResults, pageToken: pageToken)
        }
        return (page.decisions.map(PumpingDecision.init), page.nextPageToken)
    }

    /// `async`: `pumpingDecisions` run on a Dispatch queue, the caller suspended meanwhile.
    public func pumpingDecisions(
        maxResults: Int = 100, pageToken: String? = nil
    ) async throws(PhoneAuthError) -> (decisions: [PumpingDecision], nextPageToken: String?) {
        try await offload { () throws(PhoneAuthError) in
            try self.pumpingDecisions(maxResults: maxResults, pageToken: pageToken)
        }
    }
}
