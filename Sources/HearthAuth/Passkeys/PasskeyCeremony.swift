import Foundation

/// The platform-neutral half of passkeys: what the server's `start` calls answer, decoded for an authenticator, and
/// what an authenticator made, encoded as the `finalize` calls take it. On Apple platforms the
/// `ASAuthorizationPlatformPublicKeyCredential…` methods wrap these; elsewhere an app (or a test) brings its own
/// authenticator. Binary fields travel as standard padded base64, as FirebaseAuth's passkey branch sends and reads
/// them.

/// What `passkeyEnrollment:start` answered: what an authenticator needs to create a credential.
public struct PasskeyCreationOptions: Sendable, Equatable {
    /// The relying party id the credential is scoped to.
    public let relyingPartyID: String
    /// The user handle the server chose (not the uid); the authenticator returns it at sign-in.
    public let userID: Data
    public let challenge: Data
    /// The passkey's name, shown by the authenticator as the account name.
    public let name: String
}

/// What `passkeySignIn:start` answered: what an authenticator needs to make an assertion.
public struct PasskeyAssertionOptions: Sendable, Equatable {
    public let relyingPartyID: String
    public let challenge: Data
}

/// A new credential as an authenticator returns it (WebAuthn's AuthenticatorAttestationResponse).
public struct PasskeyRegistration: Sendable, Equatable {
    public var credentialID: Data
    public var clientDataJSON: Data
    public var attestationObject: Data

    public init(credentialID: Data, clientDataJSON: Data, attestationObject: Data) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
    }
}

/// An assertion as an authenticator returns it (WebAuthn's AuthenticatorAssertionResponse).
public struct PasskeyAssertion: Sendable, Equatable {
    public var credentialID: Data
    public var clientDataJSON: Data
    public var authenticatorData: Data
    public var signature: Data
    /// The user handle stored with the credential (`userID` of the creation options).
    public var userID: Data

    public init(credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userID: Data) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userID = userID
    }
}

enum PasskeyWire {
    /// FirebaseAuth's default names, one per platform's SDK; Hearth's Apple and other builds share the Apple one.
    static let defaultName = "Unnamed account (Apple)"

    static func undecodable(_ what: String) -> NSError {
        AuthErrorCode.internalError.error(message: "Failed to decode base64 \(what) from response.")
    }

    /// `credentialCreationOptions` of a `passkeyEnrollment:start` answer; the challenge and user id must be standard
    /// base64, as the iOS SDK reads them.
    static func creationOptions(_ r: JSON, name: String) throws -> PasskeyCreationOptions {
        let options = r["credentialCreationOptions"]
        guard let rpID = options?["rp"]?["id"]?.string, let user = options?["user"]?["id"]?.string,
            let challenge = options?["challenge"]?.string
        else {
            throw AuthErrorCode.internalError.error(
                message: "The passkey enrolment answer lacks rp, user or challenge.")
        }
        guard let challengeBytes = Data(base64Encoded: challenge) else { throw undecodable("challenge") }
        guard let userID = Data(base64Encoded: user) else { throw undecodable("userId") }
        return PasskeyCreationOptions(relyingPartyID: rpID, userID: userID, challenge: challengeBytes, name: name)
    }

    /// `credentialRequestOptions` of a `passkeySignIn:start` answer.
    static func assertionOptions(_ r: JSON) throws -> PasskeyAssertionOptions {
        guard let rpID = r["credentialRequestOptions"]?["rpId"]?.string,
            let challenge = r["credentialRequestOptions"]?["challenge"]?.string
        else { throw AuthErrorCode.internalError.error(message: "The passkey sign-in answer lacks rpId or challenge.") }
        guard let challengeBytes = Data(base64Encoded: challenge) else { throw undecodable("challenge") }
        return PasskeyAssertionOptions(relyingPartyID: rpID, challenge: challengeBytes)
    }

    /// Refuses a registration missing any part before anything is sent, as the iOS SDK does.
    static func checkComplete(_ registration: PasskeyRegistration) throws {
        guard !registration.credentialID.isEmpty, !registration.clientDataJSON.isEmpty,
            !registration.attestationObject.isEmpty
        else {
            throw AuthErrorCode.internalError.error(
                message: "Invalid platform credential: missing credentialID, clientDataJSON, or attestationObject.")
        }
    }

    /// The `passkeyEnrollment:finalize` body.
    static func enrollmentBody(_ registration: PasskeyRegistration, idToken: String, name: String) -> [String: JSON] {
        [
            "idToken": .string(idToken), "name": .string(name),
            "authenticatorRegistrationResponse": [
                "id": .string(registration.credentialID.base64EncodedString()),
                "response": [
                    "clientDataJSON": .string(registration.clientDataJSON.base64EncodedString()),
                    "attestationObject": .string(registration.attestationObject.base64EncodedString()),
                ],
            ],
        ]
    }

    /// The `passkeySignIn:finalize` body.
    static func signInBody(_ assertion: PasskeyAssertion) -> [String: JSON] {
        [
            "authenticatorAuthenticationResponse": [
                "id": .string(assertion.credentialID.base64EncodedString()),
                "response": [
                    "clientDataJSON": .string(assertion.clientDataJSON.base64EncodedString()),
                    "authenticatorData": .string(assertion.authenticatorData.base64EncodedString()),
                    "signature": .string(assertion.signature.base64EncodedString()),
                    "userHandle": .string(assertion.userID.base64EncodedString()),
                ],
            ]
        ]
    }
}
