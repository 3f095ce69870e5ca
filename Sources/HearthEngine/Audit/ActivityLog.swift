import Foundation
import HearthCore
import HearthStore
import Logging
import Synchronization

/// End users' sign-ins, failed sign-ins and sign-ups, kept per user for the console's History without a write per
/// request on the sign-in path: events wait in a bounded buffer and are stored in batches (one transaction each),
/// at most `flushDelay` after the first of a batch, and on shutdown (`flush()`). A full buffer drops the event and
/// counts it (`hearth_activity_events_dropped_total`) rather than making a sign-in wait.
///
/// Cost on the request path: a lock and an append. A crash loses what is waiting (at most `flushDelay`'s worth).
final class ActivityLog: Sendable {
    static let capacity = 10_000
    static let flushDelay: Duration = .milliseconds(500)

    private struct State {
        var waiting: [AuditEvent] = []
        var flushScheduled = false
    }

    private let state = Mutex(State())
    private let store: any AuditStore
    private let logger: Logger

    init(store: any AuditStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    func record(_ event: AuditEvent) {
        let schedule: Bool? = state.withLock { s in
            guard s.waiting.count < Self.capacity else { return nil }
            s.waiting.append(event)
            if s.flushScheduled { return false }
            s.flushScheduled = true
            return true
        }
        switch schedule {
        case nil: AuthMetrics.activityDropped.increment()
        case true?:
            Task {
                try? await Task.sleep(for: Self.flushDelay)
                await flush()
            }
        case false?: break
        }
    }

    /// Stores everything waiting, in batches.
    func flush() async {
        while true {
            let batch: [AuditEvent] = state.withLock { s in
                let batch = Array(s.waiting.prefix(1000))
                s.waiting.removeFirst(batch.count)
                if batch.isEmpty { s.flushScheduled = false }
                return batch
            }
            if batch.isEmpty { return }
            do {
                try await store.appendAuditEvents(batch)
            } catch {
                AuthMetrics.activityDropped.increment(by: batch.count)
                logger.error("activity events not stored", metadata: ["count": "\(batch.count)", "error": "\(error)"])
            }
        }
    }
}

extension AuthEngine {
    /// An end user's sign-in (`user.signIn`), refused sign-in (`user.signInFailed`, outcome the error code) or
    /// sign-up (`user.signUp`) for their History; buffered, never a write on the request's path.
    func recordActivity(_ action: String, uid: String, provider: String, origin: RequestOrigin, failure: AuthError?) {
        activity.record(
            AuditEvent(
                id: AuditEventID.next(random: random), time: clock.now(), actorKind: AuditActor.Kind.endUser.rawValue, actor: uid,
                clientAddress: origin.clientIP, action: action, projectID: origin.project.projectID, targetUID: uid,
                outcome: Self.auditOutcome(failure),
                diff: JSONValue.object(["after": ["signInProvider": .string(provider)]]).jsonText))
    }

    /// A known user's refused sign-in, recorded for their History; the error to throw.
    func refusedSignIn(_ uid: String, provider: String, _ code: AuthErrorCode, origin: RequestOrigin) -> AuthError {
        AuthMetrics.signInFailed(provider: provider)
        let failure = AuthError(code)
        recordActivity(ActivityAction.signInFailed, uid: uid, provider: provider, origin: origin, failure: failure)
        return failure
    }

    /// Counts a new account and records it in its History.
    func noteSignUp(_ user: UserRecord, provider: String, origin: RequestOrigin) {
        AuthMetrics.signUp(provider: provider)
        recordActivity(ActivityAction.signUp, uid: user.uid, provider: provider, origin: origin, failure: nil)
    }

    /// Stores the end-user activity still waiting (`hearth serve` calls it when stopping).
    public func flushActivity() async {
        await activity.flush()
    }
}
