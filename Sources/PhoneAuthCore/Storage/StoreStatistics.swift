/// What a store has done since it opened: for benchmarks and monitoring.
package struct StoreStatistics: Sendable {
    package var driver: String
    package var poolSize: Int
    package var transactions: Int
    /// Transactions run again after a conflict with another engine's, or a broken connection.
    package var retries: Int
    /// Statements sent to the database (each one round trip to a PostgreSQL server).
    package var roundTrips: Int
    /// Microseconds the pool's connections were in use, summed over them.
    package var busyMicroseconds: Int64
    /// Times a caller found every connection in use and waited for one.
    package var waits: Int
}
