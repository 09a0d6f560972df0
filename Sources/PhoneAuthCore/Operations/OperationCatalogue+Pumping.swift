/// The pumping defense's decisions and counts, for operators.
extension OperationCatalogue {
    static let pumping: [Operation] = [
        Operation("listPumpingDecisions", parameters: ["maxResults", "pageToken"]) { engine, _, p in
            let page = try engine.pumping.decisions(
                maxResults: Int(try p.int("maxResults", in: 1...1000) ?? 100), pageToken: try p.string("pageToken"))
            var result = JSONObjectBuilder()
            result.set("decisions", .array(page.decisions.map { .object($0.fields) }))
            result.set("pageToken", page.nextPageToken.map { .string($0) })
            return result.value
        },
        Operation("liftPumpingBlock", parameters: ["scopeKind", "scope"]) { engine, _, p in
            .object([
                ("lifted", .bool(try engine.pumping.liftBlock(kind: p.string("scopeKind"), name: p.string("scope"))))
            ])
        },
        Operation("getPumpingStatistics", parameters: []) { engine, _, _ in
            .object([
                ("countries", .array(try engine.pumping.countries().map { .object($0.fields) })),
                ("channels", .array(try engine.pumping.channels().map { .object($0.fields) })),
            ])
        },
    ]
}
