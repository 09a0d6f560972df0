/// Where an engine keeps its state: a SQLite file (the embedded default) or a PostgreSQL
/// database that engines on several machines share.
package enum Database: Sendable {
    case sqlite(path: String, synchronous: EngineConfig.Synchronous)
    case postgres(PostgresSettings)

    package init(_ config: EngineConfig) {
        if PostgresSettings.isURI(config.database) {
            var settings = config.postgres
            settings.uri = config.database
            self = .postgres(settings)
        } else {
            self = .sqlite(path: config.database, synchronous: config.sqliteSynchronous)
        }
    }

    /// Opens the database and brings its schema up to date; with `events`, its changes record events.
    package func open(events: EventSettings? = nil) throws -> Store {
        do {
            switch self {
            case let .sqlite(path, synchronous):
                let pool = ConnectionPool(size: 1, first: try migratedSQLite()) {
                    try SQLiteConnection(path: path, synchronous: synchronous)
                }
                return SQLStore(pool: pool, events: events)
            case let .postgres(settings):
                // A call waits for a free connection no longer than it may wait for the server.
                let limit = Int64(settings.connectTimeoutSeconds) * 1000 + Int64(settings.statementTimeoutMs)
                let pool = ConnectionPool(
                    size: settings.poolSize, first: try migratedPostgres(), waitLimitMilliseconds: limit
                ) {
                    try PostgresConnection(settings)
                }
                return SQLStore(pool: pool, events: events)
            }
        } catch let failure as StorageFailure {
            throw failure.asPhoneAuthError
        }
    }

    /// One connection to the database, its schema brought up to date.
    func connect() throws -> any SQLConnection {
        switch self {
        case .sqlite: return try migratedSQLite()
        case .postgres: return try migratedPostgres()
        }
    }

    /// One connection to a database that must already hold this version's schema; nothing is
    /// created or migrated (a mistyped name must not become an empty database).
    func connectExisting() throws -> any SQLConnection {
        let connection: any SQLConnection
        switch self {
        case let .sqlite(path, synchronous):
            connection = try SQLiteConnection(path: path, synchronous: synchronous, create: false)
        case let .postgres(settings): connection = try PostgresConnection(settings)
        }
        let version = try Migrations.version(of: connection)
        guard version == Migrations.all.count else {
            connection.close()
            throw StorageFailure(
                .other,
                version == 0
                    ? "There is no PhoneAuth database at \(location)."
                    : "The database at \(location) has schema \(version); "
                        + "this PhoneAuth needs \(Migrations.all.count): open it with an engine of this version first."
            )
        }
        return connection
    }

    private func migratedSQLite() throws -> SQLiteConnection {
        guard case let .sqlite(path, synchronous) = self else { throw StorageFailure(.other, "Not a SQLite database.") }
        let connection = try SQLiteConnection(path: path, synchronous: synchronous)
        do { try Migrations.apply(to: connection) } catch { connection.close(); throw error }
        return connection
    }

    private func migratedPostgres() throws -> PostgresConnection {
        guard case let .postgres(settings) = self else { throw StorageFailure(.other, "Not a PostgreSQL database.") }
        let connection = try PostgresConnection(settings)
        do { try Migrations.apply(to: connection, schema: settings.schema) } catch { connection.close(); throw error }
        return connection
    }

    /// Where it is, for messages: the file's path, or PostgreSQL's host and database.
    package var location: String {
        switch self {
        case let .sqlite(path, _): return path
        case let .postgres(settings): return settings.location
        }
    }
}
