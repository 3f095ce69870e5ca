import AsyncHTTPClient
import Foundation
import HearthCore
import HearthOutbound
import Logging
import NIOCore

/// Calls a blocking function as Identity Platform does: `POST {"data": {"jwt": "<event>"}}`, JSON back. The event
/// JWT is signed by Hearth's keys, so the function verifies it against Hearth's JWKS as it would Google's.
public struct BlockingFunctionClient: Sendable {
    let client: HTTPClient
    public let timeout: TimeAmount
    let logger: Logger

    /// - Parameter client: redirects must not be followed: the signed event goes to the configured URL or nowhere.
    public init(
        client: HTTPClient = OutboundHTTP.client, timeout: TimeAmount = .seconds(7),
        logger: Logger = Logger(label: "hearth.blocking-functions")
    ) {
        self.client = client
        self.timeout = timeout
        self.logger = logger
    }

    /// The function's answer; BLOCKING_FUNCTION_ERROR_RESPONSE (400) for a refusal, an error status (a redirect
    /// included), a timeout, a connection failure or an answer that is not a JSON object: the sign-in fails, the
    /// server does not. The client sees the function's own error only when it answered one (an `HttpsError`:
    /// `{"error": {"message", "status"}}`), as Identity Platform shows it; never the function's URL, whose query
    /// may hold a secret. The detail is logged (the URL without its query).
    public func call(_ url: String, jwt: String) async throws(AuthError) -> JSONValue {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        let body: JSONValue = ["data": ["jwt": .string(jwt)]]
        request.body = .bytes(ByteBuffer(bytes: body.jsonBytes))
        let status: UInt
        let text: String
        do {
            let response = try await client.executeOutbound(request, timeout: timeout)
            status = response.status.code
            text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw failure("((Deadline exceeded making request to the blocking function.))", url, "no answer in time")
        } catch {
            throw failure("((Failed to make request to the blocking function.))", url, "\(error)")
        }
        guard (200..<300).contains(status) else {
            if let refusal = (try? JSONValue(parsing: text))?["error"], let message = refusal["message"]?.stringValue {
                // An HttpsError: Identity Platform passes it on as the function gave it.
                var shown: [String: JSONValue] = ["code": .number(Double(status)), "message": .string(message)]
                if let state = refusal["status"]?.stringValue { shown["status"] = .string(state) }
                if let details = refusal["details"] { shown["details"] = details }
                logger.info(
                    "blocking function refused",
                    metadata: ["function": "\(Self.withoutQuery(url))", "status": "\(status)"])
                throw AuthError(
                    .blockingFunctionErrorResponse,
                    "HTTP Cloud Function returned an error: \(JSONValue.object(["error": .object(shown)]).jsonText)")
            }
            throw failure(
                "((The blocking function returned HTTP error \(status).))", url, "status \(status): \(text.prefix(300))"
            )
        }
        guard let answer = try? JSONValue(parsing: text), answer.objectValue != nil else {
            throw failure("((Response body is not valid JSON.))", url, "status \(status), body not a JSON object")
        }
        return answer
    }

    private func failure(_ message: String, _ url: String, _ detail: String) -> AuthError {
        logger.warning(
            "blocking function failed", metadata: ["function": "\(Self.withoutQuery(url))", "detail": "\(detail)"])
        return AuthError(.blockingFunctionErrorResponse, message)
    }

    /// `url` without its query and fragment, which may carry a key.
    static func withoutQuery(_ url: String) -> String {
        String(url.prefix(while: { $0 != "?" && $0 != "#" }))
    }
}
