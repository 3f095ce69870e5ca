import Crypto
import Foundation
import HearthAuth
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The device in these tests: what APNs was asked to push is handed to `Auth.canHandleNotification`,
/// as iOS hands a background push to the app delegate.
final class FakeDevice: Sendable {
    let auth = Mutex<Auth?>(nil)
    let pushPaths = Mutex<[String]>([])

    func deliver(path: String, body: Data) {
        pushPaths.withLock { $0.append(path) }
        guard let push = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return }
        _ = auth.withLock { $0 }?.canHandleNotification(push)
    }
}

/// Phone app verification end to end: HearthAuth with an APNs token, the real `hearth` binary with a
/// project in `apns` mode, and a local stand-in for APNs that delivers the push to the SDK. (The server
/// tests check the APNs side itself over HTTP/2 and TLS; this one speaks plain HTTP/1.1 to 127.0.0.1.)
@Suite("Phone app verification")
struct PhoneAppVerificationTests {
    static let number = "+447400123456"

    @Test func theSilentPushProvesTheAppAndTheCodeComes() async throws {
        let device = FakeDevice()
        let apns = try KeyServer(bodies: [:]) { path, body in device.deliver(path: path, body: body) }
        defer { apns.stop() }
        let server = try await TestServer(
            emulator: true, appVerification: "apns",
            apns: [
                "topic": "com.example.app", "teamId": "TEAM123456", "keyId": "KEY1234567",
                "key": P256.Signing.PrivateKey().pemRepresentation, "baseUrl": apns.base,
                "sandboxBaseUrl": apns.base + "/sandbox",
            ])
        let auth = server.makeAuth()
        device.auth.withLock { $0 = auth }
        let provider = PhoneAuthProvider.provider(auth: auth)

        // No APNs token, no proof: the project refuses a real number.
        let missing = await #expect(throws: NSError.self) { try await provider.verifyPhoneNumber(Self.number) }
        #expect(missing?.code == AuthErrorCode.missingAppCredential.rawValue)

        let token = Data(repeating: 0xAB, count: 32)
        auth.setAPNSToken(token, type: .sandbox)
        let verificationID = try await provider.verifyPhoneNumber(Self.number, uiDelegate: nil)
        let hex = String(repeating: "ab", count: 32)
        #expect(device.pushPaths.withLock { $0 } == ["/sandbox/3/device/\(hex)"])

        let code = try await Self.outboxCode(server, sessionInfo: verificationID)
        let result = try await auth.signIn(
            with: provider.credential(withVerificationID: verificationID, verificationCode: code))
        #expect(result.user.phoneNumber == Self.number)

        // Verification disabled for testing: no push is asked for, so only test numbers pass.
        auth.settings?.isAppVerificationDisabledForTesting = true
        let refused = await #expect(throws: NSError.self) { try await provider.verifyPhoneNumber("+447400123457") }
        #expect(refused?.code == AuthErrorCode.missingAppCredential.rawValue)
        _ = try await provider.verifyPhoneNumber(TestServer.testPhone)
        #expect(device.pushPaths.withLock { $0.count } == 1)
    }

    /// The code the development outbox holds for a session (emulator mode lists them).
    static func outboxCode(_ server: TestServer, sessionInfo: String) async throws -> String {
        let url = server.endpoint.appendingPathComponent(
            "emulator/v1/projects/\(TestServer.projectID)/verificationCodes")
        let (data, _) = try await URLSession.shared.data(from: url)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let codes = try #require(json["verificationCodes"] as? [[String: Any]])
        return try #require(codes.first { $0["sessionInfo"] as? String == sessionInfo }?["code"] as? String)
    }
}
