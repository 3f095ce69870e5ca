import Foundation
import HearthCore
import HearthStore

/// One UTC day of a scope's end-user activity, as the console's Activity page draws it.
public struct ActivityDay: Sendable, Equatable {
    /// Midnight UTC.
    public var day: Date
    /// Successful sign-ins by provider (`password`, `phone`, `google.com`, …).
    public var signIns: [String: Int] = [:]
    public var signUps = 0
    /// Refused sign-ins of known users (an unknown address or number has no History to count in).
    public var failedSignIns = 0
    public var smsSent = 0
    public var emailsSent = 0

    public init(day: Date) { self.day = day }

    public var totalSignIns: Int { signIns.values.reduce(0, +) }
}

extension AuthEngine {
    /// The activity actions, each recorded through `ActivityLog`; the Activity page counts these and no others.
    enum ActivityAction {
        static let signIn = "user.signIn"
        static let signInFailed = "user.signInFailed"
        static let signUp = "user.signUp"
        static let smsSent = "message.smsSent"
        static let emailSent = "message.emailSent"
        static let all = [signIn, signInFailed, signUp, smsSent, emailSent]
    }

    /// The last `days` UTC days of the scope's activity, oldest first, today included (a day with nothing is there
    /// with zeros). Stores what is still buffered first, so the page counts up to the request.
    public func activity(days: Int, origin: RequestOrigin) async throws -> [ActivityDay] {
        await activity.flush()
        let perDay = Double(ActivityCount.millisecondsPerDay) / 1000
        let today = Date(timeIntervalSince1970: (clock.now().timeIntervalSince1970 / perDay).rounded(.down) * perDay)
        let first = today.addingTimeInterval(-Double(days - 1) * perDay)
        var summary = (0..<days).map { ActivityDay(day: first.addingTimeInterval(Double($0) * perDay)) }
        let counts = try await store.activityCounts(
            projectID: origin.project.projectID, actions: ActivityAction.all, since: first,
            until: today.addingTimeInterval(perDay))
        for count in counts {
            let index = Int(((count.day.timeIntervalSince1970 - first.timeIntervalSince1970) / perDay).rounded())
            guard summary.indices.contains(index) else { continue }
            switch count.action {
            case ActivityAction.signIn: summary[index].signIns[count.provider ?? "unknown", default: 0] += count.count
            case ActivityAction.signInFailed: summary[index].failedSignIns += count.count
            case ActivityAction.signUp: summary[index].signUps += count.count
            case ActivityAction.smsSent: summary[index].smsSent += count.count
            case ActivityAction.emailSent: summary[index].emailsSent += count.count
            default: break
            }
        }
        return summary
    }

    /// An SMS or e-mail handed to the sender, for the Activity page's counts: buffered like sign-ins, by the
    /// system actor, naming what was sent (the message kind) and never to whom.
    func recordMessageSent(_ action: String, kind: String, origin: RequestOrigin) {
        activity.record(
            AuditEvent(
                id: AuditEventID.next(random: random), time: clock.now(), actorKind: AuditActor.Kind.system.rawValue,
                actor: "hearth", clientAddress: origin.clientIP, action: action, projectID: origin.project.projectID,
                targetUID: nil, outcome: AuditEvent.success, diff: JSONValue.object(["after": ["kind": .string(kind)]]).jsonText))
    }
}
