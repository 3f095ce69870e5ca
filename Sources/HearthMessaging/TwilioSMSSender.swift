import AsyncHTTPClient
import Foundation
import HearthOutbound
import HearthStore
import Logging
import NIOCore

/// Sends SMS through Twilio's Messages API (or anything that speaks it, at `baseURL`).
public struct TwilioSMSSender: SMSSender {
    public struct Configuration: Sendable, Equatable, Codable {
        public var accountSID: String
        /// The account's auth token, or use an API key pair instead.
        public var authToken: String?
        public var apiKeySID: String?
        public var apiKeySecret: String?
        /// The sending number, or use a Messaging Service.
        public var from: String?
        public var messagingServiceSID: String?
        /// Twilio's API by default; point it elsewhere for tests or a compatible gateway.
        public var baseURL: String = "https://api.twilio.com"

        public init(
            accountSID: String, authToken: String? = nil, apiKeySID: String? = nil, apiKeySecret: String? = nil,
            from: String? = nil, messagingServiceSID: String? = nil, baseURL: String = "https://api.twilio.com"
        ) {
            self.accountSID = accountSID
            self.authToken = authToken
            self.apiKeySID = apiKeySID
            self.apiKeySecret = apiKeySecret
            self.from = from
            self.messagingServiceSID = messagingServiceSID
            self.baseURL = baseURL
        }

        enum CodingKeys: String, CodingKey {
            case accountSID = "accountSid", authToken, apiKeySID = "apiKeySid", apiKeySecret, from,
                messagingServiceSID = "messagingServiceSid", baseURL = "baseUrl"
        }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            accountSID = try c.decode(String.self, forKey: .accountSID)
            authToken = try c.decodeIfPresent(String.self, forKey: .authToken)
            apiKeySID = try c.decodeIfPresent(String.self, forKey: .apiKeySID)
            apiKeySecret = try c.decodeIfPresent(String.self, forKey: .apiKeySecret)
            from = try c.decodeIfPresent(String.self, forKey: .from)
            messagingServiceSID = try c.decodeIfPresent(String.self, forKey: .messagingServiceSID)
            baseURL = try c.decodeIfPresent(String.self, forKey: .baseURL) ?? "https://api.twilio.com"
        }

        /// What is missing for the sender to work, if anything.
        public var problem: String? {
            if authToken == nil && (apiKeySID == nil || apiKeySecret == nil) {
                return "twilio needs authToken (HEARTH_TWILIO_AUTH_TOKEN) or apiKeySid and apiKeySecret"
            }
            if from == nil && messagingServiceSID == nil { return "twilio needs from or messagingServiceSid" }
            return nil
        }
    }

    let configuration: Configuration
    let client: HTTPClient
    let timeout: TimeAmount

    public init(
        configuration: Configuration, client: HTTPClient = OutboundHTTP.client, timeout: TimeAmount = .seconds(10)
    ) {
        self.configuration = configuration
        self.client = client
        self.timeout = timeout
    }

    public func send(_ message: OutboxMessage) async throws {
        let c = configuration
        let base = c.baseURL.hasSuffix("/") ? String(c.baseURL.dropLast()) : c.baseURL
        var request = HTTPClientRequest(url: "\(base)/2010-04-01/Accounts/\(c.accountSID)/Messages.json")
        request.method = .POST
        let user = c.authToken == nil ? c.apiKeySID ?? "" : c.accountSID
        let password = c.authToken ?? c.apiKeySecret ?? ""
        request.headers.add(
            name: "Authorization", value: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        var form = [("To", message.phoneNumber), ("Body", message.text)]
        if let service = c.messagingServiceSID {
            form.append(("MessagingServiceSid", service))
        } else if let from = c.from {
            form.append(("From", from))
        }
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        try await client.deliver(request, to: "twilio", timeout: timeout)
    }
}
