import Foundation

/// Where an app's users sign in: the server's URL, the project's web API key and its id.
public struct HearthOptions: Sendable, Equatable {
    /// The Web API key the server knows the project by (sent as `?key=`).
    public var apiKey: String
    public var projectID: String
    /// The Hearth server, `https://auth.example.com` or `http://127.0.0.1:9099`. `nil` means Google's
    /// production Firebase hosts.
    public var endpoint: URL?
    /// The tenant users of this app belong to, when the project has several.
    public var tenantID: String?

    public init(apiKey: String, projectID: String, endpoint: URL?, tenantID: String? = nil) {
        self.apiKey = apiKey
        self.projectID = projectID
        self.endpoint = endpoint
        self.tenantID = tenantID
    }
}
