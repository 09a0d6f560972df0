/// The SQLite schema, as numbered migrations; `PRAGMA user_version` records how many ran.
/// Append new migrations; never edit one that has shipped.
enum SQLiteMigrations {
    static let all: [String] = [
        // 1: users, phone identities, verifications, outbox, sessions, keys
        // Tables keyed by random text IDs are WITHOUT ROWID: one B-tree each instead of two,
        // which halves the pages a sign-in writes.
        """
        CREATE TABLE secrets (
            kid TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            sealed BLOB NOT NULL,
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE users (
            uid TEXT PRIMARY KEY,
            display_name TEXT,
            disabled INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            last_sign_in_at INTEGER,
            valid_since INTEGER
        ) WITHOUT ROWID;
        CREATE TABLE phone_identities (
            phone TEXT PRIMARY KEY,
            uid TEXT NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX phone_identities_uid ON phone_identities(uid);
        CREATE TABLE verifications (
            id TEXT PRIMARY KEY,
            phone TEXT NOT NULL,
            code_hash BLOB NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            state TEXT NOT NULL DEFAULT 'active'
        ) WITHOUT ROWID;
        CREATE INDEX verifications_active ON verifications(phone, created_at) WHERE state = 'active';
        CREATE TABLE outbox (
            verification_id TEXT PRIMARY KEY,
            phone TEXT NOT NULL,
            language_code TEXT NOT NULL,
            sealed_body BLOB,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            due_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX outbox_due ON outbox(due_at) WHERE status IN ('pending', 'sending');
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            uid TEXT NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
            token_hash BLOB NOT NULL UNIQUE,
            created_at INTEGER NOT NULL,
            auth_time INTEGER NOT NULL,
            revoked_at INTEGER,
            revoked_reason TEXT
        ) WITHOUT ROWID;
        CREATE INDEX sessions_uid ON sessions(uid);
        CREATE TABLE retired_refresh_tokens (
            token_hash BLOB PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE INDEX retired_refresh_tokens_session ON retired_refresh_tokens(session_id);
        """,
    ]

    static func apply(to connection: SQLiteConnection) throws {
        try connection.transaction {
            let current = try connection.row("PRAGMA user_version") { Int($0.int(0)) } ?? 0
            guard current <= all.count else {
                throw PhoneAuthError(.storageError, "The database was written by a newer PhoneAuth (schema \(current); this one knows \(all.count)).")
            }
            for (index, sql) in all.enumerated() where index >= current {
                try connection.execute(sql)
            }
            try connection.execute("PRAGMA user_version = \(all.count)")
        }
    }
}
