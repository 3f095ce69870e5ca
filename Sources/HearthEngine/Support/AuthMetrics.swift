import Metrics

/// What the engine counts for operators (`/metrics` on the admin listener). Dimensions are few and fixed —
/// provider ids, outcomes, limit kinds — never a user, an address or a project's data.
enum AuthMetrics {
    static func signIn(provider: String) {
        Counter(label: "hearth_sign_ins_total", dimensions: [("provider", provider), ("outcome", "success")]).increment()
    }

    static func signInFailed(provider: String) {
        Counter(label: "hearth_sign_ins_total", dimensions: [("provider", provider), ("outcome", "failure")]).increment()
    }

    static func signUp(provider: String) {
        Counter(label: "hearth_sign_ups_total", dimensions: [("provider", provider)]).increment()
    }

    /// A request refused by an abuse limit; `key` is the counter's key, of which only the kind is recorded.
    static func limitRefusal(key: String) {
        Counter(label: "hearth_rate_limit_refusals_total", dimensions: [("limit", String(key.prefix { $0 != ":" }))])
            .increment()
    }

    static func sms(outcome: String) {
        Counter(label: "hearth_sms_sends_total", dimensions: [("outcome", outcome)]).increment()
    }

    static func email(outcome: String) {
        Counter(label: "hearth_email_sends_total", dimensions: [("outcome", outcome)]).increment()
    }

    /// Password hashes waiting for or running on the hash threads, and how long each waited for a thread.
    static let hashQueueDepth = Gauge(label: "hearth_password_hash_queue_depth")
    static let hashWait = Timer(label: "hearth_password_hash_wait_seconds", preferredDisplayUnit: .seconds)

    /// An audit event the store refused (logged too); the change it describes stands.
    static func auditWriteFailed() {
        Counter(label: "hearth_audit_write_failures_total").increment()
    }

    /// End-user activity events dropped because the buffer was full, rather than making a sign-in wait.
    static let activityDropped = Counter(label: "hearth_activity_events_dropped_total")
}
