import HearthCore
import Testing

@testable import HearthProviders

/// `ProviderID` is the one list of the providers Hearth knows by name; what is built from it agrees with it.
@Suite("Provider ids")
struct ProviderIDTests {
    @Test func everyOAuthProviderHasItsRealEndpointsAndNothingElseDoes() {
        #expect(Set(OAuthPreset.all.keys) == Set(ProviderID.oauth))
        #expect(OAuthSettings.providers == ProviderID.oauth)
    }

    @Test func theBuiltInConfigsAreFirebasesDefaultProvidersAndTheOAuthOnes() {
        #expect(
            IdentityProviderConfigs.builtIn == [
                "google.com", "facebook.com", "apple.com", "twitter.com", "github.com", "microsoft.com", "yahoo.com",
                "linkedin.com",
            ])
        #expect(FederatedProvider.apple == "apple.com")
    }
}
