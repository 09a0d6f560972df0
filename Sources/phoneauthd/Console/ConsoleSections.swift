/// The console's sections by their path segment (/console/<name>), as the navigation lists them
/// (ConsoleLayout.sections).
enum ConsoleSections {
    static func all(
        _ engine: ConsoleEngine, providerHealth: @escaping @Sendable () -> [ProviderHealth]
    ) -> [String: any ConsoleSection] {
        [
            "users": ConsoleUsers(engine: engine),
            "delivery": ConsoleDelivery(engine: engine, providerHealth: providerHealth),
            "fraud": ConsoleFraud(engine: engine),
            "tenants": ConsoleTenants(engine: engine),
            "operations": ConsoleOperations(engine: engine),
        ]
    }
}
