import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Identity Toolkit and Secure Token calls the SDK makes, over URLSession.
///
/// With a base URL (a Hearth server, or the Firebase emulator) every call goes to
/// `<base>/identitytoolkit.googleapis.com/…` and `<base>/securetoken.googleapis.com/…`, the paths
/// both serve; without one, to Google's production hosts.
struct IdentityToolkitClient: Sendable {
    let apiKey: String
    let baseURL: URL?
    let languageCode: String?
    let tenantID: String?

    enum Endpoint {
        /// `v1/accounts:<method>`
        case v1(String)
        /// Identity Platform's `v2/<path>` (token revocation, multi-factor).
        case v2(String)
        /// Secure Token `v1/token`.
        case token

        var host: String {
            if case .token = self { return "securetoken.googleapis.com" }
            return "identitytoolkit.googleapis.com"
        }

        var path: String {
            switch self {
            case .v1(let method): "v1/\(method)"
            case .v2(let path): "v2/\(path)"
            case .token: "v1/token"
            }
        }
    }

    func url(_ endpoint: Endpoint) -> URL {
        let root =
            baseURL.map { "\($0.absoluteString.trimmingSuffix("/"))/\(endpoint.host)" } ?? "https://\(endpoint.host)"
        var components = URLComponents(string: "\(root)/\(endpoint.path)")!
        components.queryItems = [URLQueryItem(name: "key", value: apiKey)]
        return components.url!
    }

    /// The POST for a call: JSON body (with the tenant for Identity Toolkit calls), the API key in
    /// the query, and the user's language as `X-Firebase-Locale` for SMS and e-mail texts.
    func request(_ endpoint: Endpoint, _ body: [String: JSON]) -> URLRequest {
        var request = URLRequest(url: url(endpoint))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("HearthAuth/\(HearthAuthVersion.current)", forHTTPHeaderField: "X-Client-Version")
        if let languageCode { request.setValue(languageCode, forHTTPHeaderField: "X-Firebase-Locale") }
        var body = body
        if let tenantID, endpoint.host == "identitytoolkit.googleapis.com" { body["tenantId"] = .string(tenantID) }
        request.httpBody = JSON.object(body).data
        return request
    }

    /// The HTTP status of a refused call, in the error's userInfo (internal: for telling a method the
    /// server lacks, 404, from a refusal).
    static let httpStatusKey = "HearthAuthHTTPStatus"

    /// POSTs a JSON body and returns the decoded answer, or throws the mapped `NSError`:
    /// `networkError` when no HTTP answer arrived, the server's code otherwise.
    func call(_ endpoint: Endpoint, _ body: [String: JSON]) async throws -> JSON {
        let request = request(endpoint, body)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.cancellableData(for: request)
        } catch {
            throw AuthErrorCode.networkError.error(underlying: error)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = JSON.parse(data)
        guard (200..<300).contains(status) else {
            if let message = json?["error"]?["message"]?.string {
                throw ServerErrorMapping.error(serverMessage: message, userInfo: [Self.httpStatusKey: status])
            }
            let text = String(decoding: data.prefix(200), as: UTF8.self)
            throw (status >= 500 ? AuthErrorCode.networkError : .internalError)
                .error(message: "HTTP \(status) from \(endpoint.path): \(text)")
        }
        guard let json, json.object != nil else {
            throw AuthErrorCode.internalError.error(
                message: "The server's answer to \(endpoint.path) is not a JSON object.")
        }
        return json
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

enum HearthAuthVersion {
    static let current = "0.1.0"
}
