import Foundation
import HearthCore

/// One provider's published signing keys (a JWKS URL), fetched on demand and cached.
///
/// - Honours `Cache-Control: max-age`, clamped to 5 minutes…1 day (1 hour when absent).
/// - A `kid` it does not know triggers one refetch (keys rotate), then at most one per `unknownKidCooldown`,
///   so a stream of forged kids cannot turn Hearth into a request amplifier.
/// - One fetch in flight at a time: concurrent callers wait for the same answer.
/// - When a refetch fails the last good keys keep being served; with none, the failure is INVALID_IDP_RESPONSE.
public actor RemoteKeySet {
    public let url: String
    let http: ProviderHTTP
    let clock: AuthClock

    static let defaultLifetime: TimeInterval = 3600
    static let lifetimeBounds: ClosedRange<TimeInterval> = 300...86400
    /// After a failed fetch with keys in hand, how long to keep serving them before trying again.
    static let retryAfterFailure: TimeInterval = 60
    public static let unknownKidCooldown: TimeInterval = 30

    private var keys: [String: JSONWebKey] = [:]
    private var freshUntil: Date = .distantPast
    private var lastFetch: Date?
    private var inFlight: Task<Void, Error>?

    public init(url: String, http: ProviderHTTP, clock: AuthClock) {
        self.url = url
        self.http = http
        self.clock = clock
    }

    /// The key named `kid`, refetching the set when it is stale or does not have it (within the cooldown).
    public func key(kid: String) async throws -> JSONWebKey? {
        let now = clock.now()
        if now >= freshUntil {
            try await refresh()
        } else if keys[kid] == nil, lastFetch.map({ now.timeIntervalSince($0) >= Self.unknownKidCooldown }) ?? true {
            try await refresh()
        }
        return keys[kid]
    }

    private func refresh() async throws {
        if let inFlight { return try await inFlight.value }
        let task = Task { try await self.fetch() }
        inFlight = task
        defer { inFlight = nil }
        try await task.value
    }

    private func fetch() async throws {
        let now = clock.now()
        lastFetch = now
        do {
            let reply = try await http.get(url)
            guard reply.status == 200, let fetched = JSONWebKey.keySet(reply.json) else {
                throw AuthError(.invalidIDPResponse, "The identity provider's keys at \(url) could not be read.")
            }
            keys = fetched
            freshUntil = now.addingTimeInterval(Self.lifetime(cacheControl: reply.cacheControl))
        } catch {
            if keys.isEmpty { throw error }
            freshUntil = now.addingTimeInterval(Self.retryAfterFailure)
        }
    }

    static func lifetime(cacheControl: String?) -> TimeInterval {
        guard let cacheControl else { return defaultLifetime }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = TimeInterval(parts[1]) {
                return min(max(seconds, lifetimeBounds.lowerBound), lifetimeBounds.upperBound)
            }
        }
        return defaultLifetime
    }
}
