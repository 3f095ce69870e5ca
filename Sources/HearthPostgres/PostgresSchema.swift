/// The PostgreSQL schema, the same shape as the SQLite one: timestamps are BIGINT milliseconds since 1970,
/// hashes and keys BYTEA, flags BOOLEAN. A new column is a new migration, never an edit of an applied one.
enum PostgresSchema {
    struct Migration {
        /// Recorded in `schema_migrations` once applied.
        var version: String
        /// Run in order inside the migrating transaction; one statement each, as the extended protocol requires.
        var statements: [String]
    }

    /// Session-independent keys for `pg_advisory_xact_lock`: "Hearth" in ASCII followed by a purpose number,
    /// so they are unlikely to collide with another application's locks in a shared database.
    static let migrationLock: Int64 = 0x4865_6172_7468_0001
    static let firstSigningKeyLock: Int64 = 0x4865_6172_7468_0002

    static let createMigrationsTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
          version TEXT PRIMARY KEY,
          applied_at BIGINT NOT NULL
        )
        """

    static let migrations: [Migration] = [
        Migration(
            version: "v1",
            statements: [
                """
                CREATE TABLE users (
                  project_id TEXT NOT NULL,
                  uid TEXT NOT NULL,
                  email TEXT,
                  email_verified BOOLEAN NOT NULL DEFAULT FALSE,
                  display_name TEXT,
                  photo_url TEXT,
                  phone_number TEXT,
                  password_hash TEXT,
                  password_updated_at BIGINT,
                  valid_since BIGINT NOT NULL,
                  disabled BOOLEAN NOT NULL DEFAULT FALSE,
                  created_at BIGINT NOT NULL,
                  last_login_at BIGINT,
                  last_refresh_at BIGINT,
                  custom_claims TEXT,
                  custom_auth BOOLEAN NOT NULL DEFAULT FALSE,
                  version BIGINT NOT NULL DEFAULT 1,
                  CONSTRAINT users_pkey PRIMARY KEY (project_id, uid)
                )
                """,
                // The store maps unique violations of users_pkey, users_email and users_phone to StoreError by these names.
                "CREATE UNIQUE INDEX users_email ON users (project_id, email) WHERE email IS NOT NULL",
                "CREATE UNIQUE INDEX users_phone ON users (project_id, phone_number) WHERE phone_number IS NOT NULL",
                """
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
                )
                """,
                "CREATE INDEX provider_links_user ON provider_links (project_id, uid)",
                """
                CREATE TABLE refresh_families (
                  id TEXT PRIMARY KEY,
                  project_id TEXT NOT NULL,
                  uid TEXT NOT NULL,
                  auth_time BIGINT NOT NULL,
                  sign_in_provider TEXT NOT NULL,
                  created_at BIGINT NOT NULL,
                  revoked_at BIGINT,
                  revoke_reason TEXT
                )
                """,
                "CREATE INDEX refresh_families_user ON refresh_families (project_id, uid)",
                """
                CREATE TABLE refresh_tokens (
                  hash BYTEA PRIMARY KEY,
                  family_id TEXT NOT NULL,
                  issued_at BIGINT NOT NULL,
                  rotated_at BIGINT,
                  sealed_successor BYTEA
                )
                """,
                """
                CREATE TABLE signing_keys (
                  kid TEXT PRIMARY KEY,
                  algorithm TEXT NOT NULL,
                  private_key BYTEA NOT NULL,
                  encrypted BOOLEAN NOT NULL,
                  created_at BIGINT NOT NULL,
                  activates_at BIGINT NOT NULL,
                  retired_at BIGINT
                )
                """,
                """
                CREATE TABLE counters (
                  key TEXT PRIMARY KEY,
                  window_start BIGINT NOT NULL,
                  count BIGINT NOT NULL
                )
                """,
            ]),
        // Indexes for purging old refresh tokens and revoked families.
        Migration(
            version: "v2",
            statements: [
                "CREATE INDEX refresh_tokens_rotated ON refresh_tokens (rotated_at) WHERE rotated_at IS NOT NULL",
                "CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id)",
                "CREATE INDEX refresh_families_revoked ON refresh_families (revoked_at) WHERE revoked_at IS NOT NULL",
            ]),
        // Phone sign-in: pending codes and proofs (hashes only), and the development SMS outbox.
        Migration(
            version: "v3",
            statements: [
                """
                CREATE TABLE phone_verifications (
                  session_hash BYTEA PRIMARY KEY,
                  project_id TEXT NOT NULL,
                  phone_number TEXT NOT NULL,
                  code_hash BYTEA NOT NULL,
                  attempts BIGINT NOT NULL DEFAULT 0,
                  created_at BIGINT NOT NULL,
                  expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX phone_verifications_expiry ON phone_verifications (expires_at)",
                """
                CREATE TABLE phone_proofs (
                  proof_hash BYTEA PRIMARY KEY,
                  project_id TEXT NOT NULL,
                  phone_number TEXT NOT NULL,
                  expires_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE sms_outbox (
                  id BIGSERIAL PRIMARY KEY,
                  project_id TEXT NOT NULL,
                  phone_number TEXT NOT NULL,
                  code TEXT NOT NULL,
                  session_info TEXT NOT NULL,
                  text TEXT NOT NULL,
                  sent_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX sms_outbox_project ON sms_outbox (project_id, id)",
            ]),
        // Administration: service-account public keys, run-time project settings, per-session claims,
        // e-mail action codes (hashes only) and the development e-mail outbox.
        Migration(
            version: "v4",
            statements: [
                "ALTER TABLE refresh_families ADD COLUMN extra_claims TEXT",
                """
                CREATE TABLE service_account_keys (
                  key_id TEXT PRIMARY KEY,
                  project_id TEXT NOT NULL,
                  client_email TEXT NOT NULL,
                  public_key BYTEA NOT NULL,
                  created_at BIGINT NOT NULL,
                  revoked_at BIGINT
                )
                """,
                """
                CREATE TABLE project_settings (
                  project_id TEXT PRIMARY KEY,
                  settings TEXT NOT NULL,
                  updated_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE email_action_codes (
                  code_hash BYTEA PRIMARY KEY,
                  project_id TEXT NOT NULL,
                  kind TEXT NOT NULL,
                  email TEXT NOT NULL,
                  new_email TEXT,
                  created_at BIGINT NOT NULL,
                  expires_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE email_outbox (
                  id BIGSERIAL PRIMARY KEY,
                  project_id TEXT NOT NULL,
                  email TEXT NOT NULL,
                  kind TEXT NOT NULL,
                  oob_code TEXT NOT NULL,
                  oob_link TEXT NOT NULL,
                  sent_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX email_outbox_project ON email_outbox (project_id, id)",
            ]),
        // Federated sign-in: single-use provider nonces and pending credentials, forgotten once expired;
        // which provider e-mails are private relays.
        Migration(
            version: "v5_federated_sign_in",
            statements: [
                "ALTER TABLE provider_links ADD COLUMN private_email BOOLEAN NOT NULL DEFAULT FALSE",
                "CREATE TABLE single_use_keys (key TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)",
                "CREATE INDEX single_use_keys_expiry ON single_use_keys (expires_at)",
            ]),
        // Multi-factor: enrollments are data of the user (a JSON list); sessions remember the second factor for
        // their ID tokens; pending sign-ins and TOTP enrollments are kept by credential hash until used or expired.
        Migration(
            version: "v7_mfa",
            statements: [
                "ALTER TABLE users ADD COLUMN mfa_info TEXT",
                "ALTER TABLE refresh_families ADD COLUMN second_factor TEXT",
                "ALTER TABLE refresh_families ADD COLUMN second_factor_id TEXT",
                """
                CREATE TABLE mfa_pending (
                  credential_hash BYTEA PRIMARY KEY,
                  project_id TEXT NOT NULL,
                  uid TEXT NOT NULL,
                  purpose TEXT NOT NULL,
                  first_factor TEXT NOT NULL,
                  totp_secret TEXT,
                  created_at BIGINT NOT NULL,
                  expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX mfa_pending_expiry ON mfa_pending (expires_at)",
            ]),
        // E-mail link sign-in and e-mail change safety: whether an account signed in by link, and its first address.
        Migration(
            version: "v8_email",
            statements: [
                "ALTER TABLE users ADD COLUMN email_link_sign_in BOOLEAN NOT NULL DEFAULT FALSE",
                "ALTER TABLE users ADD COLUMN initial_email TEXT",
            ]),
        // The second-factor notice's link names the enrollment it removes.
        Migration(
            version: "v9_mfa_revert",
            statements: ["ALTER TABLE email_action_codes ADD COLUMN mfa_enrollment_id TEXT"]),
        // Browser sign-in (`/__/auth/handler`): an authorization request waiting for the provider's code, by the
        // hash of its `state`; the PKCE verifier sealed under a key derived from the state.
        Migration(
            version: "v10_oauth_pending",
            statements: [
                """
                CREATE TABLE oauth_pending (
                  state_hash BYTEA PRIMARY KEY,
                  project_id TEXT NOT NULL,
                  provider_id TEXT NOT NULL,
                  session_hash TEXT NOT NULL,
                  redirect_url TEXT NOT NULL,
                  callback_url TEXT NOT NULL,
                  sealed_verifier BYTEA NOT NULL,
                  nonce TEXT,
                  created_at BIGINT NOT NULL,
                  expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX oauth_pending_expiry ON oauth_pending (expires_at)",
            ]),
        // Every transaction that changes a user or its provider links notifies the other servers (delivered after
        // COMMIT, once per transaction), whose user caches then stop using what they read before.
        Migration(
            version: "v11_user_changes",
            statements: [
                """
                CREATE FUNCTION hearth_notify_users_changed() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  PERFORM pg_notify('\(UserChangeFeed.channel)', '');
                  RETURN NULL;
                END
                $$
                """,
                """
                CREATE TRIGGER users_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users
                FOR EACH STATEMENT EXECUTE FUNCTION hearth_notify_users_changed()
                """,
                """
                CREATE TRIGGER provider_links_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON provider_links
                FOR EACH STATEMENT EXECUTE FUNCTION hearth_notify_users_changed()
                """,
            ]),
        // createAuthUri finds an address among the provider links' e-mails too.
        Migration(
            version: "v12_provider_email",
            statements: [
                "CREATE INDEX provider_links_email ON provider_links (project_id, email) WHERE email IS NOT NULL"
            ]),
        // A provider handle (Firebase's screenName).
        Migration(version: "v13_screen_name", statements: ["ALTER TABLE users ADD COLUMN screen_name TEXT"]),
        // Sessions as an operator sees them: where the sign-in came from (a /24 or /48, never the address) and its
        // client. The last use is read from the family's tokens, so it needs no column.
        Migration(
            version: "v15_session_metadata",
            statements: [
                "ALTER TABLE refresh_families ADD COLUMN ip_prefix TEXT",
                "ALTER TABLE refresh_families ADD COLUMN user_agent TEXT",
            ]),
        // The audit log (`AuditStore`): an index per filter, each ending in the log's order (time, id), and one on
        // (time, id) alone for the export of every project and the retention purge.
        Migration(
            version: "v16_audit_events",
            statements: [
                """
                CREATE TABLE audit_events (
                  id TEXT PRIMARY KEY COLLATE "C",
                  time BIGINT NOT NULL,
                  actor_kind TEXT NOT NULL,
                  actor TEXT NOT NULL,
                  client_address TEXT,
                  action TEXT NOT NULL,
                  project_id TEXT NOT NULL,
                  target_uid TEXT,
                  outcome TEXT NOT NULL,
                  diff TEXT
                )
                """,
                "CREATE INDEX audit_events_project ON audit_events (project_id, time, id)",
                "CREATE INDEX audit_events_actor ON audit_events (project_id, actor, time, id)",
                "CREATE INDEX audit_events_action ON audit_events (project_id, action, time, id)",
                """
                CREATE INDEX audit_events_uid ON audit_events (project_id, target_uid, time, id)
                WHERE target_uid IS NOT NULL
                """,
                "CREATE INDEX audit_events_time ON audit_events (time, id)",
            ]),
        // Console admins (not end users of any project) and their browser sessions; secrets hashed or sealed.
        Migration(
            version: "v17_console_admins",
            statements: [
                """
                CREATE TABLE console_admins (
                  email TEXT PRIMARY KEY,
                  role TEXT NOT NULL,
                  password_hash TEXT,
                  totp_secret TEXT,
                  recovery_codes TEXT NOT NULL DEFAULT '',
                  setup_token_hash TEXT UNIQUE,
                  setup_expires_at BIGINT,
                  disabled BOOLEAN NOT NULL DEFAULT FALSE,
                  failed_attempts INTEGER NOT NULL DEFAULT 0,
                  locked_until BIGINT,
                  last_totp_step BIGINT,
                  created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE console_sessions (
                  token_hash TEXT PRIMARY KEY,
                  email TEXT NOT NULL,
                  created_at BIGINT NOT NULL,
                  last_seen_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX console_sessions_email ON console_sessions (email)",
            ]),
        // The console's "Search users": prefix ranges in byte order (COLLATE "C", as the uid listing sorts), which
        // the indexes of the database's default collation cannot serve.
        Migration(
            version: "v18_user_search",
            statements: [
                """
                CREATE INDEX users_email_search ON users (project_id, email COLLATE "C") WHERE email IS NOT NULL
                """,
                """
                CREATE INDEX users_phone_search ON users (project_id, phone_number COLLATE "C")
                WHERE phone_number IS NOT NULL
                """,
                "CREATE INDEX users_uid_search ON users (project_id, uid COLLATE \"C\")",
            ]),
        // Passkeys: WebAuthn credentials of users (credential ids unique per project or tenant, loaded with the user,
        // their writes notifying the other servers as link writes do), and the challenges handed out for them, by
        // hash, claimed once.
        Migration(
            version: "v14_passkeys",
            statements: [
                """
                CREATE TABLE passkey_credentials (
                  project_id TEXT NOT NULL,
                  uid TEXT NOT NULL,
                  credential_id BYTEA NOT NULL,
                  user_handle BYTEA NOT NULL,
                  public_key BYTEA NOT NULL,
                  alg BIGINT NOT NULL,
                  sign_count BIGINT NOT NULL,
                  backup_eligible BOOLEAN NOT NULL,
                  backed_up BOOLEAN NOT NULL,
                  aaguid BYTEA NOT NULL,
                  name TEXT NOT NULL,
                  attestation_format TEXT NOT NULL,
                  created_at BIGINT NOT NULL,
                  last_used_at BIGINT,
                  CONSTRAINT passkey_credentials_pkey PRIMARY KEY (project_id, credential_id)
                )
                """,
                "CREATE INDEX passkey_credentials_user ON passkey_credentials (project_id, uid)",
                """
                CREATE TRIGGER passkey_credentials_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
                ON passkey_credentials FOR EACH STATEMENT EXECUTE FUNCTION hearth_notify_users_changed()
                """,
                """
                CREATE TABLE passkey_challenges (
                  challenge_hash BYTEA PRIMARY KEY,
                  project_id TEXT NOT NULL,
                  purpose TEXT NOT NULL,
                  uid TEXT,
                  user_handle BYTEA,
                  created_at BIGINT NOT NULL,
                  expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at)",
            ]),
        // Refresh tokens keyed by where the token says it is (`RefreshTokenKey`), as on SQLite: a rotation's update
        // and insert fall on one index page, and the family index goes. Generations are numbered in each family's
        // order of use, the current token last; the hashes of the tokens stored before are kept apart, with their
        // keys, for the `hrt1_` tokens clients still hold.
        Migration(
            version: "v19_refresh_tokens_keyed_by_family",
            statements: [
                """
                CREATE TABLE refresh_tokens_keyed (
                  family_id TEXT NOT NULL,
                  generation BIGINT NOT NULL,
                  hash BYTEA NOT NULL,
                  issued_at BIGINT NOT NULL,
                  rotated_at BIGINT,
                  sealed_successor BYTEA,
                  CONSTRAINT refresh_tokens_keyed_pkey PRIMARY KEY (family_id, generation)
                )
                """,
                """
                INSERT INTO refresh_tokens_keyed
                  SELECT family_id,
                    ROW_NUMBER() OVER (
                      PARTITION BY family_id ORDER BY rotated_at IS NULL, rotated_at, issued_at, hash) - 1,
                    hash, issued_at, rotated_at, sealed_successor
                  FROM refresh_tokens
                """,
                """
                CREATE TABLE legacy_refresh_tokens (
                  hash BYTEA PRIMARY KEY,
                  family_id TEXT NOT NULL,
                  generation BIGINT NOT NULL
                )
                """,
                "INSERT INTO legacy_refresh_tokens SELECT hash, family_id, generation FROM refresh_tokens_keyed",
                "DROP TABLE refresh_tokens",
                "ALTER TABLE refresh_tokens_keyed RENAME TO refresh_tokens",
                "ALTER TABLE refresh_tokens RENAME CONSTRAINT refresh_tokens_keyed_pkey TO refresh_tokens_pkey",
                "CREATE INDEX refresh_tokens_rotated ON refresh_tokens (rotated_at) WHERE rotated_at IS NOT NULL",
            ]),
        // The actor's index without the events about their own actor (`AuditEvent.actorIndexCondition`), as on
        // SQLite.
        Migration(
            version: "v20_audit_actor_index_without_own_events",
            statements: [
                "DROP INDEX audit_events_actor",
                """
                CREATE INDEX audit_events_actor ON audit_events (project_id, actor, time, id)
                WHERE (target_uid IS NULL OR actor <> target_uid)
                """,
            ]),
        // Passkey challenges keyed in the order they are issued (`PasskeyChallenge`), as on SQLite; those issued
        // before are dropped.
        Migration(
            version: "v21_passkey_challenges_in_issue_order",
            statements: ["DELETE FROM passkey_challenges", "DROP INDEX passkey_challenges_expiry"]),
    ]
}
