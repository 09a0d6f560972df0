/// One part of the console (users, tenants, delivery, fraud, operations): what it shows, and
/// the actions its forms post. Every action is recorded (ConsoleAudit) by the section.
protocol ConsoleSection: Sendable {
    func get(_ request: ConsoleRequest) async -> ConsoleAnswer
    func post(_ request: ConsoleRequest) async -> ConsoleAnswer
}
