import AsyncHTTPClient
import Foundation
import HearthCore
import HearthOutbound
import NIOCore

/// Checks reCAPTCHA tokens with Google's `siteverify` endpoint (or a compatible one at `siteverifyURL`),
/// the app verification Firebase asks of web clients before sending an SMS.
public struct RecaptchaVerifier: Sendable {
    public struct Configuration: Sendable, Equatable, Codable {
        /// The reCAPTCHA secret key (or HEARTH_RECAPTCHA_SECRET).
        public var secret: String?
        public var siteverifyURL: String = "https://www.google.com/recaptcha/api/siteverify"
        /// For reCAPTCHA v3 and Enterprise scores: tokens scoring lower are refused.
        public var minimumScore: Double?
        /// The public site key clients render reCAPTCHA with, published by `v2/recaptchaConfig`.
        public var siteKey: String?

        public init(
            secret: String? = nil, siteverifyURL: String = "https://www.google.com/recaptcha/api/siteverify",
            minimumScore: Double? = nil, siteKey: String? = nil
        ) {
            self.secret = secret
            self.siteverifyURL = siteverifyURL
            self.minimumScore = minimumScore
            self.siteKey = siteKey
        }

        enum CodingKeys: String, CodingKey { case secret, siteverifyURL = "siteverifyUrl", minimumScore, siteKey }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            secret = try c.decodeIfPresent(String.self, forKey: .secret)
            siteverifyURL = try c.decodeIfPresent(String.self, forKey: .siteverifyURL) ?? Configuration().siteverifyURL
            minimumScore = try c.decodeIfPresent(Double.self, forKey: .minimumScore)
            siteKey = try c.decodeIfPresent(String.self, forKey: .siteKey)
        }
    }

    public enum Verdict: Sendable, Equatable {
        case valid
        case invalid
        /// The verification service could not be reached or answered nonsense.
        case unavailable
    }

    public let configuration: Configuration
    let client: HTTPClient

    public init(configuration: Configuration, client: HTTPClient = OutboundHTTP.client) {
        self.configuration = configuration
        self.client = client
    }

    public func verify(token: String, remoteIP: String?) async -> Verdict {
        var request = HTTPClientRequest(url: configuration.siteverifyURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        var form = [("secret", configuration.secret ?? ""), ("response", token)]
        if let remoteIP { form.append(("remoteip", remoteIP)) }
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        guard let response = try? await client.executeOutbound(request, timeout: .seconds(10)),
            response.status.code == 200,
            let body = try? await response.body.collect(upTo: 64 * 1024),
            let answer = try? JSONValue.parse(Array(body.readableBytesView)),
            let success = answer["success"]?.boolValue
        else { return .unavailable }
        guard success else { return .invalid }
        if let minimum = configuration.minimumScore, let score = answer["score"]?.doubleValue, score < minimum {
            return .invalid
        }
        return .valid
    }
}
