import Foundation
import HearthCore
import HearthServer
import Testing

@Suite struct ConfigurationTests {
    func decode(_ json: String) throws -> ServerConfiguration {
        try JSONDecoder().decode(ServerConfiguration.self, from: Data(json.utf8))
    }

    @Test func emptyFileMeansFirebaseDefaults() throws {
        let c = try decode("{}")
        #expect(c.host == "127.0.0.1" && c.port == 9099 && c.dataDir == ".hearth" && c.defaultProject == "demo-hearth")
        #expect(c.databaseURL == nil)
    }

    @Test func projectSettingsFillInDefaults() throws {
        let c = try decode(#"{"projects":[{"projectId":"p","apiKeys":["k"],"rateLimits":{"signUpsPerIPPerHour":5}}]}"#)
        let p = try #require(c.projects.first)
        #expect(p.apiKeys == ["k"])
        #expect(p.rateLimits.signUpsPerIPPerHour == 5)
        #expect(p.rateLimits.failedPasswordsPerAccount == 10)
        #expect(p.passwordPolicy == PasswordPolicy())
        #expect(p.emailEnumerationProtection)
        #expect(p.tokens.idTokenLifetimeSeconds == 3600)
        #expect(p.projectNumber.count == 12 && p.projectNumber.allSatisfy(\.isNumber))
    }

    @Test(arguments: [
        #"{"prot":9099}"#,
        #"{"projects":[{"projectId":"p","apikeys":["k"]}]}"#,
        #"{"projects":[{"projectId":"p","tokens":{"idTokenLifetime":60}}]}"#,
        #"{"projects":[{"projectId":"p","federation":{"apple":{"clientIds":["a"],"keyUrl":"x"}}}]}"#,
        #"{"projects":[{"projectId":"p","federation":{"oidc":{"corp":{"issuer":"https://i","clientIds":["c"]}}}}]}"#,
        #"{"projects":[{"projectId":"p","federation":{"google":{}}}]}"#,
    ])
    func misspeltSettingsAreRefused(json: String) {
        #expect(throws: DecodingError.self) { try decode(json) }
    }

    @Test func federationSettingsDefaultToTheRealProviderURLs() throws {
        let c = try decode(
            #"{"projects":[{"projectId":"p","federation":{"apple":{"clientIds":["com.example.app"]},"#
                + #""facebook":{"appId":"42","graphUrl":"http://127.0.0.1:1/graph"},"#
                + #""oidc":{"oidc.corp":{"issuer":"https://login.corp.example","clientIds":["hearth"]}}}}]}"#)
        let f = try #require(c.projects.first?.federation)
        #expect(f.apple?.clientIds == ["com.example.app"])
        #expect(f.apple?.keysUrl == "https://appleid.apple.com/auth/keys")
        #expect(f.apple?.issuers == ["https://appleid.apple.com", "https://account.apple.com"])
        #expect(f.google == nil)
        #expect(f.facebook?.graphUrl == "http://127.0.0.1:1/graph")
        #expect(f.facebook?.keysUrl == "https://limited.facebook.com/.well-known/oauth/openid/jwks/")
        #expect(f.oidc["oidc.corp"]?.keysUrl == nil)
        #expect(!f.allowDuplicateEmails)
        #expect(try decode(#"{"projects":[{"projectId":"p"}]}"#).projects.first?.federation == FederationSettings())
    }

    @Test func environmentOverridesTheFile() throws {
        var c = try decode(#"{"port":1234,"defaultProject":"from-file"}"#)
        try c.applyEnvironment([
            "HEARTH_PORT": "5678", "HEARTH_PROJECT": "from-env", "HEARTH_DATABASE_URL": "postgres://x/y",
        ])
        #expect(c.port == 5678 && c.defaultProject == "from-env" && c.databaseURL == "postgres://x/y")
        #expect(throws: ConfigurationError.self) { try c.applyEnvironment(["HEARTH_PORT": "ninety"]) }
    }

    @Test func identityProviderTimeoutIsTenSecondsUnlessSetWithinBounds() throws {
        #expect(try decode("{}").identityProviderTimeoutSeconds == 10)
        #expect(try decode(#"{"identityProviderTimeoutSeconds":45}"#).identityProviderTimeoutSeconds == 45)
        for bad in ["0", "301", "-5", "\"ten\""] {
            let json = #"{"identityProviderTimeoutSeconds":"# + bad + "}"
            #expect(throws: DecodingError.self, "\(bad)") { try decode(json) }
        }
    }

    @Test func validationCatchesImpossibleSettings() throws {
        var c = ServerConfiguration()
        c.passwordHashing.scrypt.logN = 30
        #expect(throws: ConfigurationError.self) { try c.validate() }
        c = try decode(#"{"projects":[{"projectId":"p","passwordPolicy":{"minLength":10,"maxLength":5}}]}"#)
        #expect(throws: ConfigurationError.self) { try c.validate() }
        for federation in [
            #"{"apple":{"clientIds":[]}}"#,
            #"{"apple":{"clientIds":["a"],"teamId":"T","keyId":"K"}}"#,
            #"{"apple":{"clientIds":["a"],"teamId":"T","keyId":"K","privateKey":"not a key"}}"#,
            #"{"google":{"clientIds":[]}}"#,
        ] {
            c = try decode(#"{"projects":[{"projectId":"p","federation":"# + federation + "}]}")
            #expect(throws: ConfigurationError.self, "\(federation)") { try c.validate() }
        }
        c = try decode(#"{"projects":[{"projectId":"p","federation":{"apple":{"clientIds":["a"]}}}]}"#)
        try c.validate()
    }
}
