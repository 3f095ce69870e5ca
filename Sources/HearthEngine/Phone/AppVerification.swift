import Crypto
import Foundation
import HearthCore
import HearthMessaging
import HearthStore

/// `accounts:verifyClient`: an iOS app's APNs device token, in exchange for a receipt; the secret that
/// goes with it is pushed to the device, so only the app on that device can send both back.
public struct VerifyClientRequest: Sendable {
    public var appToken: String?
    public var isSandbox: Bool

    public init(appToken: String?, isSandbox: Bool) {
        self.appToken = appToken
        self.isSandbox = isSandbox
    }
}

public struct VerifyClientResult: Sendable, Equatable {
    public let receipt: String
    /// Seconds the app should wait for the push before giving up.
    public let suggestedTimeoutSeconds: Int
}

/// The proofs `sendVerificationCode` may carry.
public struct AppProof: Sendable {
    public var recaptchaToken: String?
    public var iosReceipt: String?
    public var iosSecret: String?
    /// Play Integrity or SafetyNet, which Hearth does not verify.
    public var hasAndroidProof: Bool

    public init(
        recaptchaToken: String? = nil, iosReceipt: String? = nil, iosSecret: String? = nil,
        hasAndroidProof: Bool = false
    ) {
        self.recaptchaToken = recaptchaToken
        self.iosReceipt = iosReceipt
        self.iosSecret = iosSecret
        self.hasAndroidProof = hasAndroidProof
    }
}

/// What `v2/recaptchaConfig` tells clients: the site key, and where reCAPTCHA is enforced.
public struct RecaptchaConfig: Sendable, Equatable {
    /// The reCAPTCHA site key, if one is configured.
    public let siteKey: String?
    /// `projects/<project>/keys/<site key>`, Identity Platform's resource name; nil without a site key.
    public var recaptchaKey: String? { siteKey.map { "projects/\(projectID)/keys/\($0)" } }
    let projectID: String
    /// `ENFORCE` or `OFF` by provider: `EMAIL_PASSWORD_PROVIDER`, `PHONE_PROVIDER`.
    public let enforcement: [String: String]
}

extension AuthEngine {
    /// Phone codes need reCAPTCHA only in `recaptcha` mode; in `apns` mode clients should use the push
    /// (reCAPTCHA is only a fallback there), and password sign-in never asks for it.
    public func recaptchaConfig(origin: RequestOrigin) -> RecaptchaConfig {
        let siteKey = recaptcha?.configuration.siteKey.nonEmpty
        let phone = origin.project.phone.appVerification == .recaptcha ? "ENFORCE" : "OFF"
        return RecaptchaConfig(
            siteKey: siteKey, projectID: origin.project.projectID,
            enforcement: ["EMAIL_PASSWORD_PROVIDER": "OFF", "PHONE_PROVIDER": phone])
    }

    /// A receipt lives this long: the push, the user reading the SMS prompt, and the code request.
    static let appReceiptLifetimeSeconds = 600
    /// Stands in for the phone number of a receipt kept as a `PhoneProof` (single use, expiring, hashed):
    /// no normalised number looks like it, so a receipt never passes as a sign-in proof.
    static let appReceiptMarker = "apns-receipt"

    public func verifyClient(_ request: VerifyClientRequest, origin: RequestOrigin) async throws -> VerifyClientResult {
        guard let token = request.appToken.nonEmpty else { throw AuthError(.missingIOSAppToken) }
        // APNs device tokens are hex (32 bytes today; Apple says they may grow).
        guard token.count >= 16, token.count <= 400, token.allSatisfy(\.isHexDigit) else {
            throw AuthError(.invalidAppCredential, "The APNs device token is not hex.")
        }
        guard let silentPush else {
            throw AuthError(
                .operationNotAllowed, "This server has no APNs key configured; app verification by push is off.")
        }
        // Every receipt costs a push: the same per-IP limits as codes.
        if !isEmulator {
            let phone = origin.project.phone
            let ip = origin.clientIP ?? "-"
            try await consumeLimit("apns:ip:m:\(ip)", limit: phone.codesPerIPPerMinute, windowSeconds: 60)
            try await consumeLimit("apns:ip:h:\(ip)", limit: phone.codesPerIPPerHour, windowSeconds: 3600)
        }
        let receipt = "hpr1_" + random.token(bytes: 32)
        let secret = random.token(bytes: 32)
        let proofHash = Self.appReceiptHash(receipt: receipt, secret: secret)
        try await store.insertPhoneProof(
            PhoneProof(
                proofHash: proofHash, projectID: origin.project.projectID, phoneNumber: Self.appReceiptMarker,
                expiresAt: clock.now().addingTimeInterval(Double(Self.appReceiptLifetimeSeconds))))
        do {
            try await silentPush.sendVerificationPush(
                deviceToken: token.lowercased(), sandbox: request.isSandbox, receipt: receipt, secret: secret)
        } catch let failed as SilentPushFailed {
            _ = try? await store.consumePhoneProof(
                proofHash: proofHash, projectID: origin.project.projectID, now: clock.now())
            logger.warning("APNs push refused", metadata: ["status": "\(failed.status)", "reason": "\(failed.reason)"])
            // Apple's reasons for a token that is not this app's, or not a device's.
            if ["BadDeviceToken", "DeviceTokenNotForTopic", "Unregistered"].contains(failed.reason) {
                throw AuthError(.invalidAppCredential, "APNs refused the device token (\(failed.reason)).")
            }
            throw AuthError(.unavailable, "The verification push could not be sent; try again later.")
        }
        return VerifyClientResult(receipt: receipt, suggestedTimeoutSeconds: silentPushTimeoutSeconds)
    }

    /// The project's app-verification rule for a code request. Test numbers need no proof, as in Firebase.
    func verifyApp(_ proof: AppProof, isTestNumber: Bool, origin: RequestOrigin) async throws {
        if isTestNumber { return }
        switch origin.project.phone.appVerification {
        case .disabled:
            return
        case .recaptcha:
            guard let token = proof.recaptchaToken.nonEmpty else {
                if proof.iosReceipt != nil || proof.hasAndroidProof {
                    throw AuthError(.invalidAppCredential, "This project verifies apps with reCAPTCHA.")
                }
                throw AuthError(.missingAppCredential)
            }
            try await verifyRecaptcha(token, origin: origin)
        case .apns:
            if let receipt = proof.iosReceipt.nonEmpty {
                guard let secret = proof.iosSecret.nonEmpty else { throw AuthError(.missingAppCredential) }
                // Single use: consuming it is the check.
                let proven = try await store.consumePhoneProof(
                    proofHash: Self.appReceiptHash(receipt: receipt, secret: secret),
                    projectID: origin.project.projectID, now: clock.now())
                guard proven == Self.appReceiptMarker else { throw AuthError(.invalidAppCredential) }
            } else if let token = proof.recaptchaToken.nonEmpty, recaptcha != nil {
                try await verifyRecaptcha(token, origin: origin)
            } else {
                throw AuthError(.missingAppCredential)
            }
        }
    }

    private func verifyRecaptcha(_ token: String, origin: RequestOrigin) async throws {
        guard let recaptcha else {
            throw AuthError(.invalidAppCredential, "reCAPTCHA is not configured on this server.")
        }
        switch await recaptcha.verify(token: token, remoteIP: origin.clientIP) {
        case .valid: return
        case .invalid: throw AuthError(.invalidAppCredential)
        case .unavailable: throw AuthError(.unavailable, "reCAPTCHA verification is unavailable; try again later.")
        }
    }

    static func appReceiptHash(receipt: String, secret: String) -> [UInt8] {
        SHA256.hash(data: Array("apns:\(receipt):\(secret)".utf8)).withUnsafeBytes { Array($0) }
    }
}
