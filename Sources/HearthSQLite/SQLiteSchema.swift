import GRDB

/// The SQLite schema as a list of migrations; a new column is a new migration, never an edit.
/// Timestamps are integer milliseconds since 1970.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (
                      project_id TEXT NOT NULL,
                      uid TEXT NOT NULL,
                      email TEXT,
                      email_verified INTEGER NOT NULL DEFAULT 0,
                      display_name TEXT,
                      photo_url TEXT,
                      phone_number TEXT,
                      password_hash TEXT,
                      password_updated_at INTEGER,
                      valid_since INTEGER NOT NULL,
                      disabled INTEGER NOT NULL DEFAULT 0,
                      created_at INTEGER NOT NULL,
                      last_login_at INTEGER,
                      last_refresh_at INTEGER,
                      custom_claims TEXT,
                      custom_auth INTEGER NOT NULL DEFAULT 0,
                      version INTEGER NOT NULL DEFAULT 1,
                      PRIMARY KEY (project_id, uid)
                    ) WITHOUT ROWID;
                    CREATE UNIQUE INDEX users_email ON users (project_id, email) WHERE email IS NOT NULL;
                    CREATE UNIQUE INDEX users_phone ON users (project_id, phone_number) WHERE phone_number IS NOT NULL;

                    CREATE TABLE provider_links (
                      project_id TEXT NOT NULL,
                      provider_id TEXT NOT NULL,
                      raw_id TEXT NOT NULL,
                      uid TEXT NOT NULL,
                      federated_id TEXT,
                      email TEXT,
                      display_name TEXT,
                      photo_url TEXT,
                      phone_number TEXT,
                      PRIMARY KEY (project_id, provider_id, raw_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX provider_links_user ON provider_links (project_id, uid);

                    CREATE TABLE refresh_families (
                      id TEXT PRIMARY KEY NOT NULL,
                      project_id TEXT NOT NULL,
                      uid TEXT NOT NULL,
                      auth_time INTEGER NOT NULL,
                      sign_in_provider TEXT NOT NULL,
                      created_at INTEGER NOT NULL,
                      revoked_at INTEGER,
                      revoke_reason TEXT
                    ) WITHOUT ROWID;
                    CREATE INDEX refresh_families_user ON refresh_families (project_id, uid);

                    CREATE TABLE refresh_tokens (
                      hash BLOB PRIMARY KEY NOT NULL,
                      family_id TEXT NOT NULL,
                      issued_at INTEGER NOT NULL,
                      rotated_at INTEGER,
                      sealed_successor BLOB
                    ) WITHOUT ROWID;

                    CREATE TABLE signing_keys (
                      kid TEXT PRIMARY KEY NOT NULL,
                      algorithm TEXT NOT NULL,
                      private_key BLOB NOT NULL,
                      encrypted INTEGER NOT NULL,
                      created_at INTEGER NOT NULL,
                      activates_at INTEGER NOT NULL,
                      retired_at INTEGER
                    ) WITHOUT ROWID;

                    CREATE TABLE counters (
                      key TEXT PRIMARY KEY NOT NULL,
                      window_start INTEGER NOT NULL,
                      count INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        // Indexes for purging old refresh tokens and revoked families.
        m.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    CREATE INDEX refresh_tokens_rotated ON refresh_tokens (rotated_at) WHERE rotated_at IS NOT NULL;
                    CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
                    CREATE INDEX refresh_families_revoked ON refresh_families (revoked_at) WHERE revoked_at IS NOT NULL;
                    """)
        }
        // Phone sign-in: pending codes and proofs (hashes only), and the development SMS outbox.
        m.registerMigration("v3") { db in
            try db.execute(
                sql: """
                    CREATE TABLE phone_verifications (
                      session_hash BLOB PRIMARY KEY NOT NULL,
                      project_id TEXT NOT NULL,
                      phone_number TEXT NOT NULL,
                      code_hash BLOB NOT NULL,
                      attempts INTEGER NOT NULL DEFAULT 0,
                      created_at INTEGER NOT NULL,
                      expires_at INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX phone_verifications_expiry ON phone_verifications (expires_at);

                    CREATE TABLE phone_proofs (
                      proof_hash BLOB PRIMARY KEY NOT NULL,
                      project_id TEXT NOT NULL,
                      phone_number TEXT NOT NULL,
                      expires_at INTEGER NOT NULL
                    ) WITHOUT ROWID;

                    CREATE TABLE sms_outbox (
                      id INTEGER PRIMARY KEY AUTOINCREMENT,
                      project_id TEXT NOT NULL,
                      phone_number TEXT NOT NULL,
                      code TEXT NOT NULL,
                      session_info TEXT NOT NULL,
                      text TEXT NOT NULL,
                      sent_at INTEGER NOT NULL
                    );
                    CREATE INDEX sms_outbox_project ON sms_outbox (project_id, id);
                    """)
        }
        // Administration: service-account public keys, run-time project settings, per-session claims
        // (a custom token's `claims`, carried into every ID token the session mints), e-mail action codes
        // (hashes only) and the development e-mail outbox.
        m.registerMigration("v4") { db in
            try db.execute(
                sql: """
                    ALTER TABLE refresh_families ADD COLUMN extra_claims TEXT;

                    CREATE TABLE service_account_keys (
                      key_id TEXT PRIMARY KEY NOT NULL,
                      project_id TEXT NOT NULL,
                      client_email TEXT NOT NULL,
                      public_key BLOB NOT NULL,
                      created_at INTEGER NOT NULL,
                      revoked_at INTEGER
                    ) WITHOUT ROWID;

                    CREATE TABLE project_settings (
                      project_id TEXT PRIMARY KEY NOT NULL,
                      settings TEXT NOT NULL,
                      updated_at INTEGER NOT NULL
                    ) WITHOUT ROWID;

                    CREATE TABLE email_action_codes (
                      code_hash BLOB PRIMARY KEY NOT NULL,
                      project_id TEXT NOT NULL,
                      kind TEXT NOT NULL,
                      email TEXT NOT NULL,
                      new_email TEXT,
                      created_at INTEGER NOT NULL,
                      expires_at INTEGER NOT NULL
                    ) WITHOUT ROWID;

                    CREATE TABLE email_outbox (
                      id INTEGER PRIMARY KEY AUTOINCREMENT,
                      project_id TEXT NOT NULL,
                      email TEXT NOT NULL,
                      kind TEXT NOT NULL,
                      oob_code TEXT NOT NULL,
                      oob_link TEXT NOT NULL,
                      sent_at INTEGER NOT NULL
                    );
                    CREATE INDEX email_outbox_project ON email_outbox (project_id, id);
                    """)
        }
        // Federated sign-in: single-use provider nonces and pending credentials, forgotten once expired;
        // which provider e-mails are private relays.
        m.registerMigration("v5_federated_sign_in") { db in
            try db.execute(
                sql: """
                    ALTER TABLE provider_links ADD COLUMN private_email INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE single_use_keys (
                      key TEXT PRIMARY KEY NOT NULL,
                      expires_at INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX single_use_keys_expiry ON single_use_keys (expires_at);
                    """)
        }
        // Multi-factor: enrollments are data of the user (a JSON list); sessions remember the second factor for
        // their ID tokens; pending sign-ins and TOTP enrollments are kept by credential hash until used or expired.
        m.registerMigration("v7_mfa") { db in
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN mfa_info TEXT;
                    ALTER TABLE refresh_families ADD COLUMN second_factor TEXT;
                    ALTER TABLE refresh_families ADD COLUMN second_factor_id TEXT;
                    CREATE TABLE mfa_pending (
                      credential_hash BLOB PRIMARY KEY NOT NULL,
                      project_id TEXT NOT NULL,
                      uid TEXT NOT NULL,
                      purpose TEXT NOT NULL,
                      first_factor TEXT NOT NULL,
                      totp_secret TEXT,
                      created_at INTEGER NOT NULL,
                      expires_at INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX mfa_pending_expiry ON mfa_pending (expires_at);
                    """)
        }
        // E-mail link sign-in and e-mail change safety: whether an account signed in by link, and its first address.
        m.registerMigration("v8_email") { db in
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN email_link_sign_in INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE users ADD COLUMN initial_email TEXT;
                    """)
        }
        // The second-factor notice's link names the enrollment it removes.
        m.registerMigration("v9_mfa_revert") { db in
            try db.execute(sql: "ALTER TABLE email_action_codes ADD COLUMN mfa_enrollment_id TEXT")
        }
        // Browser sign-in (`/__/auth/handler`): an authorization request waiting for the provider's code, by the
        // hash of its `state`; the PKCE verifier sealed under a key derived from the state.
        m.registerMigration("v10_oauth_pending") { db in
            try db.execute(
                sql: """
                    CREATE TABLE oauth_pending (
                      state_hash BLOB PRIMARY KEY NOT NULL,
                      project_id TEXT NOT NULL,
                      provider_id TEXT NOT NULL,
                      session_hash TEXT NOT NULL,
                      redirect_url TEXT NOT NULL,
                      callback_url TEXT NOT NULL,
                      sealed_verifier BLOB NOT NULL,
                      nonce TEXT,
                      created_at INTEGER NOT NULL,
                      expires_at INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX oauth_pending_expiry ON oauth_pending (expires_at);
                    """)
        }
        // createAuthUri finds an address among the provider links' e-mails too.
        m.registerMigration("v11_provider_email") { db in
            try db.execute(
                sql: "CREATE INDEX provider_links_email ON provider_links (project_id, email) WHERE email IS NOT NULL")
        }
        // A provider handle (Firebase's screenName).
        m.registerMigration("v12_screen_name") { db in
            try db.execute(sql: "ALTER TABLE users ADD COLUMN screen_name TEXT")
        }
        // The change stamp of cached users (`UserChangeProbe`): every write that can change a stored user gives the
        // generation a new random value in its own transaction, so other commits (refresh rotations) leave cached
        // users current. Random rather than counted: a restored backup cannot bring back a value still cached.
        // A new user row changes no cached one (`UserCache` keeps no "not found"), so inserts into `users` (an
        // import's million rows) run no trigger.
        m.registerMigration("v13_user_generation") { db in
            var sql = """
                CREATE TABLE user_generation (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
                INSERT INTO user_generation (id, value) VALUES (1, random());
                """
            let events = ["users": ["UPDATE", "DELETE"], "provider_links": ["INSERT", "UPDATE", "DELETE"]]
            for (table, tableEvents) in events.sorted(by: { $0.key < $1.key }) {
                for event in tableEvents {
                    sql += """
                        CREATE TRIGGER \(table)_\(event.lowercased())_generation AFTER \(event) ON \(table)
                        BEGIN UPDATE user_generation SET value = random() WHERE id = 1; END;
                        """
                }
            }
            try db.execute(sql: sql)
        }
        // Sessions as an operator sees them: where the sign-in came from (a /24 or /48, never the address) and its
        // client. The last use is read from the family's tokens, so it needs no column.
        m.registerMigration("v15_session_metadata") { db in
            try db.execute(
                sql: """
                    ALTER TABLE refresh_families ADD COLUMN ip_prefix TEXT;
                    ALTER TABLE refresh_families ADD COLUMN user_agent TEXT;
                    """)
        }
        // The audit log (`AuditStore`): an index per filter, each ending in the log's order (time, id), and one on
        // (time, id) alone for the export of every project and the retention purge.
        m.registerMigration("v16_audit_events") { db in
            try db.execute(
                sql: """
                    CREATE TABLE audit_events (
                      id TEXT PRIMARY KEY NOT NULL,
                      time INTEGER NOT NULL,
                      actor_kind TEXT NOT NULL,
                      actor TEXT NOT NULL,
                      client_address TEXT,
                      action TEXT NOT NULL,
                      project_id TEXT NOT NULL,
                      target_uid TEXT,
                      outcome TEXT NOT NULL,
                      diff TEXT
                    ) WITHOUT ROWID;
                    CREATE INDEX audit_events_project ON audit_events (project_id, time, id);
                    CREATE INDEX audit_events_actor ON audit_events (project_id, actor, time, id);
                    CREATE INDEX audit_events_action ON audit_events (project_id, action, time, id);
                    CREATE INDEX audit_events_uid ON audit_events (project_id, target_uid, time, id)
                      WHERE target_uid IS NOT NULL;
                    CREATE INDEX audit_events_time ON audit_events (time, id);
                    """)
        }
        // Console admins (not end users of any project) and their browser sessions; secrets hashed or sealed.
        m.registerMigration("v17_console_admins") { db in
            try db.execute(
                sql: """
                    CREATE TABLE console_admins (
                      email TEXT PRIMARY KEY NOT NULL,
                      role TEXT NOT NULL,
                      password_hash TEXT,
                      totp_secret TEXT,
                      recovery_codes TEXT NOT NULL DEFAULT '',
                      setup_token_hash TEXT UNIQUE,
                      setup_expires_at INTEGER,
                      disabled INTEGER NOT NULL DEFAULT 0,
                      failed_attempts INTEGER NOT NULL DEFAULT 0,
                      locked_until INTEGER,
                      last_totp_step INTEGER,
                      created_at INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE console_sessions (
                      token_hash TEXT PRIMARY KEY NOT NULL,
                      email TEXT NOT NULL,
                      created_at INTEGER NOT NULL,
                      last_seen_at INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX console_sessions_email ON console_sessions (email);
                    """)
        }
        // Passkeys: WebAuthn credentials of users (credential ids unique per project or tenant, loaded with the
        // user, their writes moving the user generation as link writes do), and the challenges handed out for
        // them, by hash, claimed once.
        m.registerMigration("v14_passkeys") { db in
            var sql = """
                CREATE TABLE passkey_credentials (
                  project_id TEXT NOT NULL,
                  uid TEXT NOT NULL,
                  credential_id BLOB NOT NULL,
                  user_handle BLOB NOT NULL,
                  public_key BLOB NOT NULL,
                  alg INTEGER NOT NULL,
                  sign_count INTEGER NOT NULL,
                  backup_eligible INTEGER NOT NULL,
                  backed_up INTEGER NOT NULL,
                  aaguid BLOB NOT NULL,
                  name TEXT NOT NULL,
                  attestation_format TEXT NOT NULL,
                  created_at INTEGER NOT NULL,
                  last_used_at INTEGER,
                  PRIMARY KEY (project_id, credential_id)
                ) WITHOUT ROWID;
                CREATE INDEX passkey_credentials_user ON passkey_credentials (project_id, uid);
                CREATE TABLE passkey_challenges (
                  challenge_hash BLOB PRIMARY KEY NOT NULL,
                  project_id TEXT NOT NULL,
                  purpose TEXT NOT NULL,
                  uid TEXT,
                  user_handle BLOB,
                  created_at INTEGER NOT NULL,
                  expires_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at);
                """
            for event in ["INSERT", "UPDATE", "DELETE"] {
                sql += """
                    CREATE TRIGGER passkey_credentials_\(event.lowercased())_generation AFTER \(event) ON passkey_credentials
                    BEGIN UPDATE user_generation SET value = random() WHERE id = 1; END;
                    """
            }
            try db.execute(sql: sql)
        }
        // A sign-in's bookkeeping (`SQLiteSchema.bookkeeping`) no longer moves the user generation, so one user's
        // sign-in or refresh leaves every other user cached; the engine drops the signed-in user from its own cache
        // (`UserCache.bookkeepingWritten`). Every other column still moves it, so a revocation, a disabled account or
        // a new password is seen by the next request from any process.
        m.registerMigration("v18_bookkeeping_outside_user_generation") { db in
            for (table, exempt) in Self.bookkeeping.sorted(by: { $0.key < $1.key }) {
                let watched = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))")
                    .map { $0["name"] as String }.filter { !exempt.contains($0) }
                try db.execute(
                    sql: """
                        DROP TRIGGER \(table)_update_generation;
                        CREATE TRIGGER \(table)_update_generation AFTER UPDATE OF \(watched.joined(separator: ", "))
                          ON \(table)
                        BEGIN UPDATE user_generation SET value = random() WHERE id = 1; END;
                        """)
            }
        }
        // Refresh tokens keyed by where the token says it is (`RefreshTokenKey`): a rotation updates its token and
        // inserts the successor beside it, on one page, instead of at two random places of a table keyed by hash,
        // and the family index goes (the key begins with the family). Generations are numbered in each family's
        // order of use, the current token last. The hash of every token stored before is kept apart, with its key,
        // for the `hrt1_` tokens clients still hold.
        m.registerMigration("v19_refresh_tokens_keyed_by_family") { db in
            try db.execute(
                sql: """
                    CREATE TABLE refresh_tokens_keyed (
                      family_id TEXT NOT NULL,
                      generation INTEGER NOT NULL,
                      hash BLOB NOT NULL,
                      issued_at INTEGER NOT NULL,
                      rotated_at INTEGER,
                      sealed_successor BLOB,
                      PRIMARY KEY (family_id, generation)
                    ) WITHOUT ROWID;
                    INSERT INTO refresh_tokens_keyed
                      SELECT family_id,
                        ROW_NUMBER() OVER (
                          PARTITION BY family_id ORDER BY rotated_at IS NULL, rotated_at, issued_at, hash) - 1,
                        hash, issued_at, rotated_at, sealed_successor
                      FROM refresh_tokens;
                    CREATE TABLE legacy_refresh_tokens (
                      hash BLOB PRIMARY KEY NOT NULL,
                      family_id TEXT NOT NULL,
                      generation INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    INSERT INTO legacy_refresh_tokens SELECT hash, family_id, generation FROM refresh_tokens_keyed;
                    DROP TABLE refresh_tokens;
                    ALTER TABLE refresh_tokens_keyed RENAME TO refresh_tokens;
                    CREATE INDEX refresh_tokens_rotated ON refresh_tokens (rotated_at) WHERE rotated_at IS NOT NULL;
                    """)
        }
        // The actor's index without the events about their own actor (`AuditEvent.actorIndexCondition`): an end
        // user's sign-in is one per-user index write, in the target's index, where it was two.
        m.registerMigration("v20_audit_actor_index_without_own_events") { db in
            try db.execute(
                sql: """
                    DROP INDEX audit_events_actor;
                    CREATE INDEX audit_events_actor ON audit_events (project_id, actor, time, id)
                      WHERE (target_uid IS NULL OR actor <> target_uid);
                    """)
        }
        // Passkey challenges keyed in the order they are issued (`PasskeyChallenge`): the expiry index goes (the
        // expired are a range of keys). Challenges issued before have keys of another shape and are dropped: a
        // ceremony under way during the upgrade answers PASSKEY_CHALLENGE_TIMEOUT and starts again.
        m.registerMigration("v21_passkey_challenges_in_issue_order") { db in
            try db.execute(
                sql: """
                    DELETE FROM passkey_challenges;
                    DROP INDEX passkey_challenges_expiry;
                    """)
        }
        return m
    }

    /// The columns a sign-in writes without changing who the user is or what they may do, per table. A migration
    /// that adds a column to one of these tables recreates its `_update_generation` trigger to watch it
    /// (`LookupCacheTests.everyColumnButASignInsBookkeepingMovesTheStamp` checks that every other column is
    /// watched).
    static let bookkeeping: [String: Set<String>] = [
        "users": ["last_login_at", "last_refresh_at"],
        "passkey_credentials": ["sign_count", "backup_eligible", "backed_up", "last_used_at"],
    ]
}
