import AsyncHTTPClient
import CryptoExtras
import Foundation
import HearthCore
import NIOCore

/// Hearth's published signing keys (JWKS), cached for the `max-age` the server sends: one fetch at a time,
/// a refetch when a token names an unknown `kid` (at most every few seconds), and the last good keys kept when a
/// refetch fails.
actor PublicKeyCache {
    private let url: String
    private let httpClient: HTTPClient
    private var keys: [String: _RSA.Signing.PublicKey] = [:]
    private var expires = Date.distantPast
    private var lastFetch = Date.distantPast
    private var inFlight: Task<Void, Error>?
    /// Bounds on how long keys are trusted without a refetch, whatever the server says.
    static let maxAge: ClosedRange<TimeInterval> = 60...86400
    static let unknownKidCooldown: TimeInterval = 5

    init(url: String, httpClient: HTTPClient) {
        self.url = url
        self.httpClient = httpClient
    }

    func key(kid: String) async throws -> _RSA.Signing.PublicKey? {
        if Date() >= expires { try await refresh() }
        if let key = keys[kid] { return key }
        guard Date().timeIntervalSince(lastFetch) >= Self.unknownKidCooldown else { return nil }
        try await refresh()
        return keys[kid]
    }

    private func refresh() async throws {
        if let inFlight { return try await inFlight.value }
        let task = Task { try await fetch() }
        inFlight = task
        defer { inFlight = nil }
        do { try await task.value } catch  where !keys.isEmpty {
            // Keep serving the keys we have; try again shortly.
            expires = Date().addingTimeInterval(Self.unknownKidCooldown)
        }
    }

    private func fetch() async throws {
        lastFetch = Date()
        let response = try await httpClient.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok, case .array(let entries)? = try? JSONValue.parse(Array(buffer: body))["keys"]
        else { throw HearthAdminError.transport("\(url) answered \(response.status.code)") }
        var fresh: [String: _RSA.Signing.PublicKey] = [:]
        for case .object(let jwk) in entries {
            guard jwk["kty"]?.stringValue == "RSA", let kid = jwk["kid"]?.stringValue,
                let n = jwk["n"]?.stringValue.flatMap(Base64URL.decode),
                let e = jwk["e"]?.stringValue.flatMap(Base64URL.decode),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { continue }
            fresh[kid] = key
        }
        keys = fresh
        let maxAge = response.headers.first(name: "cache-control").flatMap(Self.maxAge(in:)) ?? 3600
        expires = Date().addingTimeInterval(min(max(maxAge, Self.maxAge.lowerBound), Self.maxAge.upperBound))
    }

    static func maxAge(in cacheControl: String) -> TimeInterval? {
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = TimeInterval(parts[1]) {
                return seconds
            }
        }
        return nil
    }
}
