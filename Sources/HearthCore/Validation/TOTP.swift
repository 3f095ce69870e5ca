import Crypto
import Foundation

/// RFC 6238 time-based one-time passwords with Firebase's fixed parameters: HMAC-SHA1, 6 digits, 30 s steps.
public enum TOTP {
    public static let digits = 6
    public static let periodSeconds = 30
    public static let algorithm = "SHA1"
    /// 20 bytes (160 bits), RFC 4226's recommended secret length.
    public static let secretLength = 20

    /// The time step `date` falls in.
    public static func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / Double(periodSeconds)).rounded(.down))
    }

    /// The code for one time step (RFC 4226 HOTP with the step as counter, dynamic truncation).
    public static func code(secret: [UInt8], step: Int64) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        let value = binary % 1_000_000
        let text = String(value)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// The step whose code `code` is, searching `adjacentIntervals` steps either side of `now`'s; nil when none.
    /// Compares every candidate in constant time so the answer's timing does not tell which step matched.
    public static func matchingStep(code: String, secret: [UInt8], now: Date, adjacentIntervals: Int) -> Int64? {
        guard code.utf8.count == digits, code.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        let current = step(at: now)
        let window = max(0, adjacentIntervals)
        var found: Int64?
        for offset in -Int64(window)...Int64(window) {
            if ConstantTime.equals(TOTP.code(secret: secret, step: current + offset).utf8, code.utf8),
                found == nil
            {
                found = current + offset
            }
        }
        return found
    }

    /// The `otpauth://` URI authenticator apps read from a QR code, as Firebase's SDKs build it.
    public static func uri(secret: String, accountName: String, issuer: String) -> String {
        "otpauth://totp/\(issuer):\(accountName)?secret=\(secret)&issuer=\(issuer)&algorithm=\(algorithm)&digits=\(digits)"
    }
}
