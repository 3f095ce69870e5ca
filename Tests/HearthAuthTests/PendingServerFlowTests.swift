import Foundation
import Testing

@testable import HearthAuth

/// Request bodies checked as pure functions: custom tokens and Apple token revocation (which the live suites
/// also run against the server) and the multi-factor answer (the live flow is in MultiFactorTests).
@Suite("Request bodies and the second-factor answer")
struct PendingServerFlowTests {
    @Test func customTokenAndRevocationBodies() {
        #expect(
            RequestBodies.customTokenSignIn(token: "minted.jwt") == ["token": "minted.jwt", "returnSecureToken": true])
        #expect(
            RequestBodies.appleTokenRevocation(authorizationCode: "apple-code", idToken: "hearth-id")
                == ["providerId": "apple.com", "tokenType": "3", "token": "apple-code", "idToken": "hearth-id"])
    }

    @Test func secondFactorAnswerBecomesAResolverWithTheEnrolledFactors() throws {
        let auth = Auth.auth(
            app: HearthApp.configure(
                name: "mfa-\(UUID())", options: HearthOptions(apiKey: "k", projectID: "p", endpoint: nil),
                userStore: InMemoryUserStore()))
        let answer: JSON = [
            "localId": "uid-1", "mfaPendingCredential": "pending-cred",
            "mfaInfo": [
                [
                    "mfaEnrollmentId": "enrollment-1", "displayName": "work phone", "phoneInfo": "+*******3434",
                    "enrolledAt": "2024-05-01T10:00:00Z",
                ]
            ],
        ]
        let error = try #require(throws: NSError.self) { try auth.throwIfSecondFactorRequired(answer) }
        #expect(error.code == AuthErrorCode.secondFactorRequired.rawValue)
        let resolver = try #require(error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
        let hint = try #require(resolver.hints.first as? PhoneMultiFactorInfo)
        #expect(hint.uid == "enrollment-1")
        #expect(hint.displayName == "work phone")
        #expect(hint.phoneNumber == "+*******3434")
        #expect(hint.factorID == "phone")
        #expect(hint.enrollmentDate == Date(timeIntervalSince1970: 1_714_557_600))
        #expect(resolver.session.pendingCredential == "pending-cred")

        #expect(
            RequestBodies.phoneSecondFactorStart(pendingCredential: "pending-cred", enrollmentID: hint.uid) == [
                "mfaPendingCredential": "pending-cred", "mfaEnrollmentId": "enrollment-1", "phoneSignInInfo": [:],
            ])
        let assertion = PhoneMultiFactorGenerator.assertion(
            with: PhoneAuthProvider.provider(auth: auth).credential(withVerificationID: "s", verificationCode: "123456")
        )
        #expect(try assertion.verificationInfo() == ["sessionInfo": "s", "code": "123456"])
        // An ordinary answer passes.
        try auth.throwIfSecondFactorRequired(["localId": "uid-1", "idToken": "a.b.c", "refreshToken": "r"])
    }
}
