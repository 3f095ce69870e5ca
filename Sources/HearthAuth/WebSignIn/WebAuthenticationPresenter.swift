#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
    import AuthenticationServices
    import Foundation

    /// Shows a `WebSignInRequest`'s handler page in `ASWebAuthenticationSession` and returns the
    /// redirect into the app. Apple platforms only; not compiled on Linux.
    @MainActor
    final class WebAuthenticationPresenter: NSObject, ASWebAuthenticationPresentationContextProviding {
        /// Kept while the page is up: the session is not retained by the system.
        private var session: ASWebAuthenticationSession?

        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            ASPresentationAnchor()
        }

        func open(_ url: URL, callbackScheme: String) async throws -> URL {
            defer { session = nil }
            return try await withCheckedThrowingContinuation { continuation in
                let session = ASWebAuthenticationSession(url: url, callbackURLScheme: callbackScheme) {
                    callback, error in
                    if let callback {
                        continuation.resume(returning: callback)
                    } else if let error = error as? ASWebAuthenticationSessionError, error.code == .canceledLogin {
                        continuation.resume(throwing: AuthErrorCode.webContextCancelled.error(underlying: error))
                    } else {
                        continuation.resume(
                            throwing: AuthErrorCode.webSignInUserInteractionFailure.error(underlying: error))
                    }
                }
                session.presentationContextProvider = self
                self.session = session
                if !session.start() {
                    continuation.resume(throwing: AuthErrorCode.webContextAlreadyPresented.error())
                }
            }
        }
    }
#endif
