import HearthAdmin
import Hummingbird

/// A request context that carries the Hearth user a request was authenticated as.
public protocol HearthAuthRequestContext: RequestContext {
    var hearthUser: DecodedIDToken? { get set }
}

/// Authenticates requests by Hearth ID token (`Authorization: Bearer <ID token>`), as a Firebase backend checks
/// Firebase ID tokens: a missing or invalid token is 401 unless `required` is false, in which case the request
/// goes on without a user.
public struct HearthAuthMiddleware<Context: HearthAuthRequestContext>: RouterMiddleware {
    let admin: HearthAdmin
    let checkRevoked: Bool
    let required: Bool

    public init(admin: HearthAdmin, checkRevoked: Bool = false, required: Bool = true) {
        self.admin = admin
        self.checkRevoked = checkRevoked
        self.required = required
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var context = context
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            do {
                context.hearthUser = try await admin.verifyIDToken(
                    String(header.dropFirst(7)), checkRevoked: checkRevoked)
            } catch let error as HearthAdminError {
                if required { throw HTTPError(.unauthorized, message: error.description) }
            }
        } else if required {
            throw HTTPError(.unauthorized, message: "missing Authorization: Bearer <Hearth ID token>")
        }
        return try await next(request, context)
    }
}
