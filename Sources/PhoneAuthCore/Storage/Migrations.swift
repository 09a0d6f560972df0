/// The schema, as numbered migrations written once in SQLite's dialect; PostgreSQL gets each
/// one translated (`postgres(_:)`). SQLite records how many ran in `PRAGMA user_version`,
/// PostgreSQL in the table `schema_version`. Append new migrations; never edit one that has shipped.
enum Migrations {
    static let all: [String] = [
        // 1: users, phone identities, verifications, outbox, sessions, keys
        // Every row a flow writes costs whole pages in the WAL, so the schema keeps the pages
        // per flow few: tables keyed by random text IDs are WITHOUT ROWID (one B-tree, not two),
        // a user's phone number is a unique column of users (its index is the phone identity
        // lookup), and the SMS outbox lives in the verification's own row. Verification IDs and
        // uids begin with their creation time (SortableID), so new rows append and old ones are
        // found by key range.
        """
        CREATE TABLE secrets (
            kid TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            sealed BLOB NOT NULL,
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE users (
            uid TEXT PRIMARY KEY,
            phone TEXT UNIQUE,
            display_name TEXT,
            disabled INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            last_sign_in_at INTEGER,
            valid_since INTEGER,
            custom_claims TEXT
        ) WITHOUT ROWID;
        CREATE TABLE verifications (
            id TEXT PRIMARY KEY,
            phone TEXT NOT NULL,
            code_hash BLOB NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            state TEXT NOT NULL DEFAULT 'active',
            -- outbox: 'none' (test numbers), 'sending' (leased), 'pending', 'sent', 'failed'
            delivery TEXT NOT NULL,
            language_code TEXT NOT NULL,
            sealed_body BLOB,
            delivery_attempts INTEGER NOT NULL DEFAULT 0,
            due_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX verifications_phone ON verifications(phone, created_at);
        CREATE INDEX verifications_due ON verifications(due_at) WHERE delivery IN ('pending', 'sending');
        -- A session's refresh token names (uid, id) and its generation; only the hash of the
        -- current generation's secret is kept.
        CREATE TABLE sessions (
            uid TEXT NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
            id TEXT NOT NULL,
            generation INTEGER NOT NULL DEFAULT 0,
            secret_hash BLOB NOT NULL,
            provider TEXT NOT NULL DEFAULT 'phone',
            developer_claims TEXT,
            created_at INTEGER NOT NULL,
            auth_time INTEGER NOT NULL,
            revoked_at INTEGER,
            revoked_reason TEXT,
            PRIMARY KEY (uid, id)
        ) WITHOUT ROWID;
        CREATE INDEX sessions_ended ON sessions(revoked_at) WHERE revoked_at IS NOT NULL;
        """,
        // 2: second factors, pending multi-factor sessions, codes bound to a purpose
        // A verification's purpose says what its code may be used for: 'signIn' (first factor,
        // linking, re-authentication), 'enroll' (subject = the enrolling uid), 'mfaSignIn'
        // (subject = the multi-factor session) or 'temporaryProof' (subject = the number's owner),
        // so a second-factor code never signs anyone in alone.
        """
        ALTER TABLE verifications ADD COLUMN purpose TEXT NOT NULL DEFAULT 'signIn';
        ALTER TABLE verifications ADD COLUMN subject TEXT;
        ALTER TABLE sessions ADD COLUMN second_factor TEXT;
        ALTER TABLE sessions ADD COLUMN second_factor_enrollment TEXT;
        CREATE TABLE factors (
            uid TEXT NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
            enrollment_id TEXT NOT NULL,
            factor_id TEXT NOT NULL,
            display_name TEXT,
            phone TEXT,
            sealed_secret BLOB,
            -- the last TOTP time step accepted: a code of that step or an earlier one is a replay
            last_step INTEGER NOT NULL DEFAULT 0,
            -- consecutive wrong TOTP codes, across challenges, and the lock they earned
            failures INTEGER NOT NULL DEFAULT 0,
            locked_until INTEGER NOT NULL DEFAULT 0,
            enrolled_at INTEGER NOT NULL,
            PRIMARY KEY (uid, enrollment_id)
        ) WITHOUT ROWID;
        CREATE INDEX factors_phone ON factors(phone) WHERE phone IS NOT NULL;
        -- 'signIn': a first factor passed, a second is awaited; 'totpEnrollment': a TOTP secret
        -- handed out, its first code awaited.
        CREATE TABLE mfa_sessions (
            id TEXT PRIMARY KEY,
            uid TEXT NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            provider TEXT NOT NULL,
            developer_claims TEXT,
            sealed_secret BLOB,
            attempts INTEGER NOT NULL DEFAULT 0,
            state TEXT NOT NULL DEFAULT 'active',
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX mfa_sessions_uid ON mfa_sessions(uid);
        """,
        // 3: abuse limits. Per-number send counts come from the verifications themselves (their
        // phone index); the other limits count events in fixed windows ('bucket' = window start
        // in ms), two consecutive windows making a sliding estimate. number_failures holds only
        // numbers with a wrong code since their last right one, so a sign-in reads one index entry.
        """
        -- Keyed by bucket first, so spent windows are deleted by a range of the key.
        CREATE TABLE counters (
            bucket INTEGER NOT NULL,
            scope TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (bucket, scope)
        ) WITHOUT ROWID;
        CREATE TABLE number_failures (
            phone TEXT PRIMARY KEY,
            consecutive INTEGER NOT NULL,
            locked_until INTEGER NOT NULL DEFAULT 0,
            last_failure_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        // 4: app verification: push receipts (with the hash of their secret) and captcha
        // challenges (with the callback scheme), each usable once until it expires.
        """
        CREATE TABLE app_checks (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            secret_hash BLOB,
            scheme TEXT,
            expires_at INTEGER NOT NULL,
            state TEXT NOT NULL DEFAULT 'active'
        ) WITHOUT ROWID;
        """,
        // 5: a number's run of wrong codes outlives its lockouts: how many it has had (each one
        // twice as long as the last) and at which count of the run the next one comes.
        """
        ALTER TABLE number_failures ADD COLUMN lockouts INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE number_failures ADD COLUMN next_lock_at INTEGER NOT NULL DEFAULT 0;
        """,
        // 6: a refresh that is retried (two requests at once, or a lost response) within the reuse
        // interval gets the same new token: the previous generation's secret hash, when the session
        // was last rotated, and the current secret, sealed, to hand out again.
        """
        ALTER TABLE sessions ADD COLUMN previous_secret_hash BLOB;
        ALTER TABLE sessions ADD COLUMN rotated_at INTEGER;
        ALTER TABLE sessions ADD COLUMN sealed_secret BLOB;
        """,
        // 7: SMS providers: which one took the message (or failed last), the ID it gave the
        // message, and why the last attempt failed; and which engine holds its lease, so an
        // engine whose lease ran out cannot record over another's.
        """
        ALTER TABLE verifications ADD COLUMN delivery_lease TEXT;
        ALTER TABLE verifications ADD COLUMN delivery_provider TEXT;
        ALTER TABLE verifications ADD COLUMN delivery_message_id TEXT;
        ALTER TABLE verifications ADD COLUMN delivery_error TEXT;
        """,
        // 8: signing-key rotation: when a key stops verifying and leaves the JWKS (NULL: current).
        """
        ALTER TABLE secrets ADD COLUMN retire_at INTEGER;
        """,
        // 9: a sign-in retried after an unknown outcome (its commit's answer lost): when its code
        // was used, by which user, the session it opened (or the second-factor challenge) and
        // whether the user was new, so the same credential soon after gets that result again.
        """
        ALTER TABLE verifications ADD COLUMN used_at INTEGER;
        ALTER TABLE verifications ADD COLUMN used_by TEXT;
        ALTER TABLE verifications ADD COLUMN used_session TEXT;
        ALTER TABLE verifications ADD COLUMN used_new_user INTEGER;
        """,
        // 10: the claims a beforeSignIn hook gave one session: in its ID tokens only, never stored
        // on the user.
        """
        ALTER TABLE sessions ADD COLUMN session_claims TEXT;
        """,
        // 11: the events outbox: each event written in the transaction of the change it reports,
        // deleted once delivered. IDs grow (EventID): only a subject's (a user's, or a number's)
        // first event by ID is ever delivered, so they arrive in order. Recording only inserts,
        // so it never meets another recording transaction's reads.
        """
        CREATE TABLE events (
            id TEXT PRIMARY KEY,
            subject TEXT NOT NULL,
            type TEXT NOT NULL,
            payload TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            due_at INTEGER NOT NULL,
            lease TEXT,
            last_error TEXT
        ) WITHOUT ROWID;
        CREATE INDEX events_by_due ON events (due_at);
        CREATE INDEX events_by_subject ON events (subject, id);
        """,
        // 12: tenants. Each user and verification belongs to one: '' is the default pool (not
        // NULL, so UNIQUE (tenant, phone) holds there too). Sessions, factors and challenges reach
        // their tenant through their user's uid, which stays unique across tenants. SQLite cannot
        // drop the column constraint UNIQUE (phone), so users is rebuilt (foreign keys are off
        // while migrations run, so dropping the old table takes no session with it).
        """
        CREATE TABLE tenants (
            id TEXT PRIMARY KEY,
            display_name TEXT NOT NULL,
            settings TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE users_by_tenant (
            uid TEXT PRIMARY KEY,
            tenant TEXT NOT NULL DEFAULT '',
            phone TEXT,
            display_name TEXT,
            disabled INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            last_sign_in_at INTEGER,
            valid_since INTEGER,
            custom_claims TEXT,
            UNIQUE (tenant, phone)
        ) WITHOUT ROWID;
        INSERT INTO users_by_tenant (uid, phone, display_name, disabled, created_at, last_sign_in_at, valid_since,
            custom_claims)
        SELECT uid, phone, display_name, disabled, created_at, last_sign_in_at, valid_since, custom_claims FROM users;
        DROP TABLE users;
        ALTER TABLE users_by_tenant RENAME TO users;
        CREATE INDEX users_tenant ON users (tenant, uid);
        ALTER TABLE verifications ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
        """,
        // 13: channels. A verification's row holds its current delivery (its channel, the channel it may still fall
        // back to, its number among the verification's deliveries), found by the provider's message ID when a receipt
        // comes; `deliveries` keeps those a resend or a fallback replaced. 'awaiting' is a sent message whose fallback
        // falls due at due_at unless a receipt says it arrived. (Not IN of three values: SQLite would build a table of
        // them for the index's condition on every insert.) sealed_body now holds the code itself, kept while the
        // verification is active so a fallback or a resend can say it again.
        """
        ALTER TABLE verifications ADD COLUMN channel TEXT NOT NULL DEFAULT 'sms';
        ALTER TABLE verifications ADD COLUMN fallback TEXT;
        ALTER TABLE verifications ADD COLUMN delivery_seq INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE verifications ADD COLUMN delivery_error_code TEXT;
        ALTER TABLE verifications ADD COLUMN asked_language TEXT;
        DROP INDEX verifications_due;
        CREATE INDEX verifications_due ON verifications(due_at) \
        WHERE (delivery IN ('pending', 'sending') OR delivery = 'awaiting');
        CREATE INDEX verifications_message ON verifications(delivery_message_id) WHERE delivery_message_id IS NOT NULL;
        CREATE TABLE deliveries (
            verification_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            channel TEXT NOT NULL,
            provider TEXT,
            message_id TEXT,
            status TEXT NOT NULL,
            error TEXT,
            error_code TEXT,
            replaced_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (verification_id, seq)
        ) WITHOUT ROWID;
        CREATE INDEX deliveries_message ON deliveries(message_id) WHERE message_id IS NOT NULL;
        """,
        // 14: the calls besides sign-in that spend a code, retried after an unknown outcome
        // (their commit's answer lost): which call used a code (a retry is the same call again),
        // and when a challenge or TOTP enrolment was met, the session it opened, and the factor
        // and the TOTP step that met it, so the same proof soon after gets that session again.
        """
        ALTER TABLE verifications ADD COLUMN used_call TEXT;
        ALTER TABLE mfa_sessions ADD COLUMN resolved_at INTEGER;
        ALTER TABLE mfa_sessions ADD COLUMN resolved_session TEXT;
        ALTER TABLE mfa_sessions ADD COLUMN resolved_step INTEGER;
        ALTER TABLE mfa_sessions ADD COLUMN resolved_enrollment TEXT;
        """,
        // 15: the pumping defense (Pumping/): each scope's counts of codes sent and verified in
        // the current and previous hour, day and week, and its block; the decisions it made;
        // and the scopes a verification's send was counted in, credited when its code is entered;
        // and the number's region, for the counts per region and channel.
        """
        CREATE TABLE pumping_scopes (
            scope TEXT PRIMARY KEY,
            hour_start INTEGER NOT NULL, hour_sent INTEGER NOT NULL, hour_verified INTEGER NOT NULL,
            hour_previous_sent INTEGER NOT NULL, hour_previous_verified INTEGER NOT NULL,
            day_start INTEGER NOT NULL, day_sent INTEGER NOT NULL, day_verified INTEGER NOT NULL,
            day_previous_sent INTEGER NOT NULL, day_previous_verified INTEGER NOT NULL,
            week_start INTEGER NOT NULL, week_sent INTEGER NOT NULL, week_verified INTEGER NOT NULL,
            week_previous_sent INTEGER NOT NULL, week_previous_verified INTEGER NOT NULL,
            blocked_until INTEGER NOT NULL,
            strikes INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE pumping_decisions (
            id TEXT PRIMARY KEY,
            at INTEGER NOT NULL,
            action TEXT NOT NULL,
            scope_kind TEXT NOT NULL,
            scope TEXT NOT NULL,
            rule TEXT NOT NULL,
            sent INTEGER NOT NULL,
            verified INTEGER NOT NULL,
            allowance INTEGER NOT NULL,
            until INTEGER NOT NULL,
            region TEXT NOT NULL,
            tenant TEXT NOT NULL,
            channel TEXT NOT NULL,
            risk_per_million INTEGER,
            start_score_per_million INTEGER
        ) WITHOUT ROWID;
        ALTER TABLE verifications ADD COLUMN pumping_scopes TEXT;
        ALTER TABLE verifications ADD COLUMN region TEXT;
        """,
        // 16: passkeys (Passkeys/): each user's WebAuthn credentials, keyed by the credential's
        // ID, gone with the user; and the ceremonies' challenges, by their hash, each used once.
        """
        CREATE TABLE passkeys (
            id TEXT PRIMARY KEY,
            tenant TEXT NOT NULL,
            uid TEXT NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
            public_key BLOB NOT NULL,
            algorithm INTEGER NOT NULL,
            sign_count INTEGER NOT NULL,
            aaguid BLOB NOT NULL,
            format TEXT NOT NULL,
            backup_eligible INTEGER NOT NULL,
            name TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            last_used_at INTEGER
        );
        CREATE INDEX passkeys_user ON passkeys (uid);
        CREATE TABLE passkey_challenges (
            id BLOB PRIMARY KEY,
            ceremony TEXT NOT NULL,
            tenant TEXT NOT NULL,
            uid TEXT,
            expires_at INTEGER NOT NULL
        );
        """,
        // 17: an operator's search by the start of a display name, ASCII case ignored
        // (searchUsers): a range of this index, in both stores.
        """
        CREATE INDEX users_tenant_name ON users (tenant, lower(display_name));
        """,
        // 18: users_tenant_name holds only users with a display name: a phone user has none when
        // created, and indexing nothing cost each sign-up a WAL frame of its own. The search's
        // statement says "display_name IS NOT NULL", so both stores still read the index.
        """
        DROP INDEX users_tenant_name;
        CREATE INDEX users_tenant_name ON users (tenant, lower(display_name)) WHERE display_name IS NOT NULL;
        """,
    ]

    /// Migrations PostgreSQL runs in words of its own rather than translated, by index.
    static let postgresOnly: [Int: String] = [
        // 12: PostgreSQL drops the constraint in place.
        11: """
        CREATE TABLE tenants (
            id TEXT COLLATE "C" PRIMARY KEY,
            display_name TEXT COLLATE "C" NOT NULL,
            settings TEXT COLLATE "C" NOT NULL,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL
        );
        ALTER TABLE users ADD COLUMN tenant TEXT COLLATE "C" NOT NULL DEFAULT '';
        ALTER TABLE users DROP CONSTRAINT users_phone_key;
        ALTER TABLE users ADD CONSTRAINT users_tenant_phone_key UNIQUE (tenant, phone);
        CREATE INDEX users_tenant ON users (tenant, uid);
        ALTER TABLE verifications ADD COLUMN tenant TEXT COLLATE "C" NOT NULL DEFAULT '';
        """
    ]

    /// A SQLite migration in PostgreSQL's words: 64-bit integers, bytea, text compared bytewise
    /// (IDs that start with their creation time must sort as SQLite sorts them), and no
    /// WITHOUT ROWID, which PostgreSQL's heap tables have no use for.
    static func postgres(_ sql: String) -> String {
        let words = [
            (" INTEGER", " BIGINT"), (" BLOB", " BYTEA"), (" TEXT", " TEXT COLLATE \"C\""), (") WITHOUT ROWID;", ");"),
        ]
        return words.reduce(sql) { $0.replacingEvery($1.0, with: $1.1) }
    }
}

extension String {
    /// The string with every occurrence of `target` replaced.
    func replacingEvery(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
