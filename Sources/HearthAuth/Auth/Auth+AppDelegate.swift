#if canImport(UIKit) && os(iOS)
    import UIKit

    /// The app-delegate and scene-delegate entry points FirebaseAuth swizzles in; HearthAuth does not
    /// swizzle, so an app calls them from its own delegates. Apple platforms only (not compiled on Linux).
    extension Auth {
        public func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) {
            for context in URLContexts { _ = canHandle(context.url) }
        }

        public func application(
            _ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data
        ) {
            setAPNSToken(deviceToken, type: .unknown)
        }

        public func application(
            _ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: Error
        ) {}

        public func application(
            _ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
            fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
        ) {
            completionHandler(canHandleNotification(userInfo) ? .noData : .newData)
        }

        public func application(
            _ application: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any]
        ) -> Bool {
            canHandle(url)
        }
    }
#endif
