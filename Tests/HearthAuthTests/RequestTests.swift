import Foundation
import Testing

@testable import HearthAuth

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Requests")
struct RequestTests {
    let options = HearthOptions(apiKey: "k1", projectID: "p1", endpoint: URL(string: "https://auth.example.com/")!)

    @Test func pathsAreTheEmulatorStyleOnesUnderTheConfiguredEndpoint() {
        let auth = Auth.auth(
            app: HearthApp.configure(name: "paths-\(UUID())", options: options, userStore: InMemoryUserStore()))
        #expect(
            auth.client.url(.v1("accounts:signUp")).absoluteString
                == "https://auth.example.com/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k1")
        #expect(
            auth.client.url(.token).absoluteString
                == "https://auth.example.com/securetoken.googleapis.com/v1/token?key=k1")
        #expect(
            auth.client.url(.v2("accounts:revokeToken")).absoluteString
                == "https://auth.example.com/identitytoolkit.googleapis.com/v2/accounts:revokeToken?key=k1")

        auth.useEmulator(withHost: "::1", port: 9099)
        #expect(
            auth.client.url(.v1("accounts:lookup")).absoluteString
                == "http://[::1]:9099/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k1")

        let google = IdentityToolkitClient(apiKey: "k", baseURL: nil, languageCode: nil, tenantID: nil)
        #expect(google.url(.token).absoluteString == "https://securetoken.googleapis.com/v1/token?key=k")
    }

    @Test func languageCodeIsSentAsFirebaseLocaleAndTenantInTheBody() throws {
        let auth = Auth.auth(
            app: HearthApp.configure(name: "locale-\(UUID())", options: options, userStore: InMemoryUserStore()))
        #expect(auth.client.request(.v1("accounts:signUp"), [:]).value(forHTTPHeaderField: "X-Firebase-Locale") == nil)
        auth.languageCode = "ko"
        auth.tenantID = "tenant-a"
        let request = auth.client.request(.v1("accounts:sendVerificationCode"), ["phoneNumber": "+16505553434"])
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "X-Firebase-Locale") == "ko")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let body = try #require(request.httpBody.flatMap(JSON.parse))
        #expect(body == ["phoneNumber": "+16505553434", "tenantId": "tenant-a"])
        // The Secure Token API has no tenant field.
        let refresh = auth.client.request(.token, ["grantType": "refresh_token"])
        #expect(refresh.httpBody.flatMap(JSON.parse) == ["grantType": "refresh_token"])
    }
}
