import AsyncHTTPClient
import Foundation
import HearthCore
import NIOCore

/// Calls a blocking function as Identity Platform does: `POST {"data": {"jwt": "<event>"}}`, JSON back. The event
/// JWT is signed by Hearth's keys, so the function verifies it against Hearth's JWKS as it would Google's.
public struct BlockingFunctionClient: Sendable {
    let client: HTTPClient
    public let timeout: TimeAmount

    public init(client: HTTPClient = .shared, timeout: TimeAmount = .seconds(7)) {
        self.client = client
        self.timeout = timeout
    }

    /// The function's answer; BLOCKING_FUNCTION_ERROR_RESPONSE (400) for a refusal, an error status, a timeout, a
    /// connection failure or an answer that is not a JSON object: the sign-in fails, the server does not.
    public func call(_ url: String, jwt: String) async throws(AuthError) -> JSONValue {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        let body: JSONValue = ["data": ["jwt": .string(jwt)]]
        request.body = .bytes(ByteBuffer(bytes: body.jsonBytes))
        let status: UInt
        let text: String
        do {
            let response = try await client.execute(request, timeout: timeout)
            status = response.status.code
            text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw AuthError(.blockingFunctionErrorResponse, "((Deadline exceeded making request to \(url).))")
        } catch {
            throw AuthError(.blockingFunctionErrorResponse, "((Failed to make request to \(url).))")
        }
        guard (200..<300).contains(status) else {
            // A function refuses with {"error": {"message", "status"}}; its message is what the client sees.
            let message = (try? JSONValue(parsing: text))?["error"]?["message"]?.stringValue ?? String(text.prefix(500))
            throw AuthError(
                .blockingFunctionErrorResponse, "((HTTP request to \(url) returned HTTP error \(status): \(message)))")
        }
        guard let answer = try? JSONValue(parsing: text), answer.objectValue != nil else {
            throw AuthError(.blockingFunctionErrorResponse, "((Response body is not valid JSON.))")
        }
        return answer
    }
}
