/// Where the engine keeps its state: every concern's part of it in one type. Each operation is
/// one transaction the engine needs. Implementations are thread-safe and safe to share with other
/// processes (on other machines, for PostgreSQL) opening the same database. A transaction that
/// conflicts with another runs again, so the closures given to an operation (code and secret
/// checks) may be called more than once and must have no effect but their answer.
///
/// Each part is declared in its concern's folder, beside the SQL that implements it for SQLStore:
/// a service is given only the parts it uses.
package typealias Store = KeyStore & VerificationStore & SignInStore & AccountStore & MultiFactorStore & AppCheckStore
    & OutboxStore & SessionStore & LimitStore & MaintenanceStore & EventStore & TenantStore & PumpingStore
    & PasskeyStore
