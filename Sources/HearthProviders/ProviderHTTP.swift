import AsyncHTTPClient
import Foundation
import HearthCore
import HearthOutbound
import NIOCore
import NIOHTTP1

/// Outbound calls to identity providers, each bounded by a timeout. Every failure — unreachable, slow,
/// a non-2xx answer, a body that is not JSON — is the client-visible INVALID_IDP_RESPONSE, never a 5xx.
public struct ProviderHTTP: Sendable {
    public struct Reply: Sendable {
        public var status: Int
        public var json: JSONValue
        public var cacheControl: String?
    }

    let client: HTTPClient
    let timeout: TimeAmount

    public init(client: HTTPClient = OutboundHTTP.client, timeout: TimeAmount = .seconds(10)) {
        self.client = client
        self.timeout = timeout
    }

    public func get(_ url: String) async throws -> Reply {
        try await send(HTTPClientRequest(url: url))
    }

    /// A GET with an OAuth access token (`Authorization: Bearer`); GitHub's API also insists on a User-Agent.
    public func get(_ url: String, bearer token: String) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "User-Agent", value: "Hearth")
        return try await send(request)
    }

    public func postForm(_ url: String, _ form: [(String, String)]) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: Self.formEncode(form)))
        return try await send(request)
    }

    /// The body of a 200 answer as bytes (a certificate, say); INVALID_IDP_RESPONSE otherwise.
    public func getBytes(_ url: String, limit: Int = 64 * 1024) async throws -> [UInt8] {
        let host = URL(string: url)?.host ?? url
        do {
            let response = try await client.executeOutbound(HTTPClientRequest(url: url), timeout: timeout)
            let body = try await response.body.collect(upTo: limit)
            if response.status.code == 200 { return Array(body.readableBytesView) }
        } catch {}
        throw AuthError(
            .invalidIDPResponse, "The identity provider at \(host) could not be reached or answered nonsense.")
    }

    /// Sends `request` and returns the status and the raw body (OAuth 1.0a's form-encoded answers).
    func sendRaw(_ request: HTTPClientRequest) async throws -> (status: Int, body: String) {
        let host = URL(string: request.url)?.host ?? request.url
        do {
            let response = try await client.executeOutbound(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), String(buffer: body))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw AuthError(.invalidIDPResponse, "The identity provider at \(host) did not answer in time.")
        } catch {
            throw AuthError(.invalidIDPResponse, "The identity provider at \(host) could not be reached.")
        }
    }

    /// Sends and reads a JSON answer; any status is returned so callers can read providers' error bodies.
    func send(_ request: HTTPClientRequest) async throws -> Reply {
        var request = request
        request.headers.add(name: "Accept", value: "application/json")
        let host = URL(string: request.url)?.host ?? request.url
        do {
            let response = try await client.executeOutbound(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 1 << 20)
            let bytes = Array(body.readableBytesView)
            let json = bytes.isEmpty ? JSONValue.null : try JSONValue.parse(bytes)
            return Reply(
                status: Int(response.status.code), json: json,
                cacheControl: response.headers.first(name: "cache-control"))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw AuthError(.invalidIDPResponse, "The identity provider at \(host) did not answer in time.")
        } catch {
            throw AuthError(
                .invalidIDPResponse, "The identity provider at \(host) could not be reached or answered nonsense.")
        }
    }

    static func formEncode(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return pairs.map { k, v in
            "\(k.addingPercentEncoding(withAllowedCharacters: allowed) ?? k)=\(v.addingPercentEncoding(withAllowedCharacters: allowed) ?? v)"
        }.joined(separator: "&")
    }

    /// `url` with query parameters appended, percent-encoded.
    static func url(_ base: String, _ query: [(String, String)]) -> String {
        base + (base.contains("?") ? "&" : "?") + formEncode(query)
    }
}
