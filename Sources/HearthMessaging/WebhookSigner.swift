import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore

/// The one signature of Hearth's webhooks (SMS and e-mail): `X-Hearth-Timestamp` (Unix seconds) and
/// `X-Hearth-Signature: sha256=<hex>`, the HMAC-SHA256 of `<timestamp>.<body>` under the shared secret.
public enum WebhookSigner {
    /// A JSON POST of `body` to `url`, signed with `secret` as sent at `sentAt`.
    static func request(url: String, body: [UInt8], secret: String?, sentAt: Date) -> HTTPClientRequest {
        let timestamp = String(Int(sentAt.timeIntervalSince1970))
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "X-Hearth-Timestamp", value: timestamp)
        request.headers.add(
            name: "X-Hearth-Signature", value: "sha256=" + signature(secret: secret ?? "", timestamp: timestamp, body: body))
        request.body = .bytes(ByteBuffer(bytes: body))
        return request
    }

    /// Hex HMAC-SHA256 of `timestamp.body`: what a receiver recomputes to check a request.
    public static func signature(secret: String, timestamp: String, body: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("\(timestamp).".utf8) + body, using: SymmetricKey(data: Array(secret.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined()
    }
}
