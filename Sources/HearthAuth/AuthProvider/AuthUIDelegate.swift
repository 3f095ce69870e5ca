#if canImport(UIKit)
    import UIKit

    /// Presents FirebaseAuth's web views (reCAPTCHA, sign-in pages) from the app's view controller.
    /// HearthAuth's web sign-in uses `ASWebAuthenticationSession`, which presents itself, so the
    /// delegate is accepted for FirebaseAuth's signatures and otherwise unused.
    ///
    /// Sendable, so it can be passed from the main actor to the SDK's async methods under Swift 6; a
    /// `UIViewController` (main-actor isolated) already is.
    public protocol AuthUIDelegate: AnyObject, Sendable {
        func present(
            _ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (() -> Void)?)
        func dismiss(animated flag: Bool, completion: (() -> Void)?)
    }
#else
    /// FirebaseAuth's UI-presenting delegate. Without UIKit there is nothing to present with, so the
    /// protocol has no requirements; it exists so FirebaseAuth's `uiDelegate:` calls compile.
    public protocol AuthUIDelegate: AnyObject, Sendable {}
#endif
