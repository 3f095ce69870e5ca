import HearthCore

/// clientDataJSON (WebAuthn L3 §5.8.1): what the browser or platform says it asked the authenticator to sign.
struct ClientData {
    var type: String
    var challenge: [UInt8]
    var origin: String
    var crossOrigin: Bool

    /// Reads the members the ceremonies check; other members (topOrigin, Chrome's "other_keys_can_be_added_here")
    /// are ignored as §5.8.1 asks.
    init(_ bytes: [UInt8]) throws(WebAuthnFailure) {
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch { throw .invalid("clientDataJSON is not JSON") }
        guard json.objectValue != nil else { throw .invalid("clientDataJSON is not an object") }
        guard let type = json["type"]?.stringValue else { throw .invalid("clientDataJSON has no type") }
        guard let encoded = json["challenge"]?.stringValue, let challenge = Base64URL.decode(encoded),
            !challenge.isEmpty
        else { throw .invalid("clientDataJSON challenge is not base64url") }
        guard let origin = json["origin"]?.stringValue else { throw .invalid("clientDataJSON has no origin") }
        switch json["crossOrigin"] {
        case nil, .null?: crossOrigin = false
        case .bool(let value)?: crossOrigin = value
        default: throw .invalid("clientDataJSON crossOrigin is not a boolean")
        }
        self.type = type
        self.challenge = challenge
        self.origin = origin
    }

    /// §7.1 steps 7-10 and §7.2 steps 11-14: the ceremony type, the challenge issued, an expected origin, not
    /// embedded in another origin's frame.
    func check(type expectedType: String, challenge expected: [UInt8], relyingParty: RelyingParty)
        throws(WebAuthnFailure)
    {
        guard type == expectedType else { throw .invalid("clientDataJSON type \(type), expected \(expectedType)") }
        guard ConstantTime.equals(challenge, expected) else { throw .invalid("challenge does not match") }
        guard relyingParty.origins.contains(origin) else { throw .invalid("origin \(origin) is not expected") }
        guard !crossOrigin else { throw .invalid("crossOrigin is true") }
    }
}
