import Foundation
import HearthCore
import HearthEngine
import Hummingbird

/// Passkeys, Identity Toolkit v2: `accounts/passkeyEnrollment:start|finalize` and `accounts/passkeySignIn:start|finalize`,
/// at the spellings of the other v2 account methods. Binary fields leave as standard padded base64 (the iOS SDK
/// decodes only that) and arrive in either alphabet, padded or not (the JS SDK sends base64url); WebAuthn's field
/// names are answered and both WebAuthn's and Google's proto spellings are read.
extension AuthRoutes {
    func registerPasskeys(on router: HearthRouter) {
        let methods: [(String, Handler)] = [
            ("passkeyEnrollment:start", startPasskeyEnrollment),
            ("passkeyEnrollment:finalize", finalizePasskeyEnrollment),
            ("passkeySignIn:start", startPasskeySignIn), ("passkeySignIn:finalize", finalizePasskeySignIn),
        ]
        for (name, handler) in methods {
            for prefix in ["", "/identitytoolkit.googleapis.com"] {
                router.post("\(prefix)/v2/accounts/\(name)") { request, context in
                    try await respond(request, context, hasProject: false, handler)
                }
            }
        }
    }

    func startPasskeyEnrollment(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let o = try await engine.startPasskeyEnrollment(idToken: try wire.string("idToken"), origin: origin)
        let selection: JSONValue? =
            o.requiresResidentKey
            ? ["residentKey": "required", "requireResidentKey": true, "userVerification": "required"] : nil
        return [
            "credentialCreationOptions": .compact([
                "rp": .compact(["id": .string(o.rpID), "name": .text(o.rpName)]),
                "user": .compact([
                    "id": .string(Base64.encode(o.userHandle)), "name": .text(o.userName),
                    "displayName": .text(o.userDisplayName),
                ]),
                "challenge": .string(Base64.encode(o.challenge)),
                "pubKeyCredParams": .array(o.algorithms.map { ["type": "public-key", "alg": .number(Double($0))] }),
                "timeout": .number(Double(o.timeoutMilliseconds)),
                "attestation": "none",
                "authenticatorSelection": selection,
                "excludeCredentials": o.excludeCredentials.isEmpty
                    ? nil
                    : .array(o.excludeCredentials.map { ["type": "public-key", "id": .string(Base64.encode($0))] }),
            ])
        ]
    }

    func finalizePasskeyEnrollment(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        var response: PasskeyRegistrationResponse?
        if let c = try wire.message("authenticatorRegistrationResponse") {
            let r = try responseMessage(c, proto: "authenticatorAttestationResponse")
            response = PasskeyRegistrationResponse(
                id: try credentialID(c), clientDataJSON: try clientDataJSON(r),
                attestationObject: try r?.bytes("attestationObject"))
        }
        let result = try await engine.finalizePasskeyEnrollment(
            idToken: try wire.string("idToken"), name: try wire.string("name"),
            displayName: try wire.string("displayName"), response: response, origin: origin)
        return .compact([
            "localId": .string(result.user.uid),
            "idToken": result.tokens.map { .string($0.idToken) },
            "refreshToken": result.tokens.map { .string($0.refreshToken) },
        ])
    }

    func startPasskeySignIn(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let o = try await engine.startPasskeySignIn(origin: origin)
        return [
            "credentialRequestOptions": .compact([
                "challenge": .string(Base64.encode(o.challenge)), "rpId": .string(o.rpID),
                "userVerification": "required", "timeout": o.timeoutMilliseconds.map { .number(Double($0)) },
            ])
        ]
    }

    func finalizePasskeySignIn(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        var response: PasskeyAssertionResponse?
        if let c = try wire.message("authenticatorAuthenticationResponse") {
            let r = try responseMessage(c, proto: "authenticatorAssertionResponse")
            response = PasskeyAssertionResponse(
                id: try credentialID(c), clientDataJSON: try clientDataJSON(r),
                authenticatorData: try r?.bytes("authenticatorData"), signature: try r?.bytes("signature"),
                userHandle: try r?.bytes("userHandle"))
        }
        let result = try await engine.finalizePasskeySignIn(response, origin: origin)
        return tokensOnly(result.tokens)
    }

    /// The credential's id: WebAuthn's `id` (base64url) or `rawId`, or the proto's `credentialId`.
    private func credentialID(_ c: WireRequest) throws(AuthError) -> String? {
        for name in ["id", "rawId", "credentialId"] {
            if let id = try c.string(name), !id.isEmpty { return id }
        }
        return nil
    }

    /// WebAuthn's `response`, or the proto's name for it.
    private func responseMessage(_ c: WireRequest, proto: String) throws(AuthError) -> WireRequest? {
        if let r = try c.message("response") { return r }
        return try c.message(proto)
    }

    /// WebAuthn's `clientDataJSON`, or the proto's `clientDataJson` (also what `client_data_json` folds to).
    private func clientDataJSON(_ r: WireRequest?) throws(AuthError) -> [UInt8]? {
        guard let r else { return nil }
        if let bytes = try r.bytes("clientDataJSON") { return bytes }
        return try r.bytes("clientDataJson")
    }
}
