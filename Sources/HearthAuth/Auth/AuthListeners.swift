import Foundation

/// What `addStateDidChangeListener` returns; pass it to `removeStateDidChangeListener`.
public typealias AuthStateDidChangeListenerHandle = NSObjectProtocol
/// What `addIDTokenDidChangeListener` returns; pass it to `removeIDTokenDidChangeListener`.
public typealias IDTokenDidChangeListenerHandle = NSObjectProtocol

final class AuthListenerHandle: NSObject, Sendable {
    let id = UUID()
}

/// A registered listener: a closure run on the main actor, as FirebaseAuth runs them on the main
/// thread, or a stream fed in order at the moment of the change.
struct AuthListener: Sendable {
    enum Kind: Sendable {
        case stateDidChange
        case idTokenDidChange
    }

    enum Delivery: Sendable {
        case mainActor(@MainActor @Sendable (Auth, User?) -> Void)
        case stream(AsyncStream<User?>.Continuation)
    }

    let kind: Kind
    let delivery: Delivery

    func deliver(_ auth: Auth, _ user: User?) {
        switch delivery {
        case .mainActor(let closure): Task { @MainActor in closure(auth, user) }
        case .stream(let continuation): continuation.yield(user)
        }
    }
}

extension Auth {
    /// Calls `listener` now with the current user, then whenever a user signs in or out.
    @discardableResult
    public func addStateDidChangeListener(_ listener: @escaping @MainActor @Sendable (Auth, User?) -> Void)
        -> AuthStateDidChangeListenerHandle
    {
        add(AuthListener(kind: .stateDidChange, delivery: .mainActor(listener)))
    }

    public func removeStateDidChangeListener(_ handle: AuthStateDidChangeListenerHandle) {
        remove(handle)
    }

    /// Calls `listener` now, then whenever the user signs in or out or their ID token changes.
    @discardableResult
    public func addIDTokenDidChangeListener(_ listener: @escaping @MainActor @Sendable (Auth, User?) -> Void)
        -> IDTokenDidChangeListenerHandle
    {
        add(AuthListener(kind: .idTokenDidChange, delivery: .mainActor(listener)))
    }

    public func removeIDTokenDidChangeListener(_ handle: IDTokenDidChangeListenerHandle) {
        remove(handle)
    }

    /// The current user, then the user after every sign-in and sign-out:
    /// `for await user in Auth.auth().authStateChanges { … }`.
    public var authStateChanges: AuthStateChangesSequence { AuthStateChangesSequence(self) }

    /// Like `authStateChanges`, and also after every ID token refresh.
    public var idTokenChanges: IDTokenChangesSequence { IDTokenChangesSequence(self) }

    /// What `authStateChanges` returns, FirebaseAuth's named sequence type. Each iterator is its own
    /// listener, removed when the iteration ends.
    public struct AuthStateChangesSequence: AsyncSequence, Sendable {
        public typealias Element = User?
        public typealias Failure = Never
        let auth: Auth

        public init(_ auth: Auth) { self.auth = auth }

        public func makeAsyncIterator() -> Iterator { Iterator(auth.stream(.stateDidChange).makeAsyncIterator()) }

        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<User?>.Iterator
            init(_ base: AsyncStream<User?>.Iterator) { self.base = base }
            public mutating func next() async -> User?? { await base.next() }
        }
    }

    /// What `idTokenChanges` returns.
    public struct IDTokenChangesSequence: AsyncSequence, Sendable {
        public typealias Element = User?
        public typealias Failure = Never
        let auth: Auth

        public init(_ auth: Auth) { self.auth = auth }

        public func makeAsyncIterator() -> Iterator { Iterator(auth.stream(.idTokenDidChange).makeAsyncIterator()) }

        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<User?>.Iterator
            init(_ base: AsyncStream<User?>.Iterator) { self.base = base }
            public mutating func next() async -> User?? { await base.next() }
        }
    }

    func stream(_ kind: AuthListener.Kind) -> AsyncStream<User?> {
        AsyncStream { continuation in
            let handle = add(AuthListener(kind: kind, delivery: .stream(continuation)))
            continuation.onTermination = { [weak self] _ in self?.remove(handle) }
        }
    }

    private func add(_ listener: AuthListener) -> AuthListenerHandle {
        let handle = AuthListenerHandle()
        let user = state.withLock { s in
            s.listeners[handle.id] = listener
            return s.currentUser
        }
        listener.deliver(self, user)
        return handle
    }

    private func remove(_ handle: NSObjectProtocol) {
        guard let handle = handle as? AuthListenerHandle else { return }
        _ = state.withLock { $0.listeners.removeValue(forKey: handle.id) }
    }

    /// Tells state listeners when the uid changed, token listeners when the uid or the token did.
    func notify(previous: (uid: String, idToken: String)?, current: User?) {
        let currentIDs = current.map { ($0.uid, $0.record.tokens.idToken) }
        let userChanged = previous?.uid != currentIDs?.0
        let tokenChanged = userChanged || previous?.idToken != currentIDs?.1
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners {
            switch listener.kind {
            case .stateDidChange where userChanged, .idTokenDidChange where tokenChanged:
                listener.deliver(self, current)
            default: break
            }
        }
        if tokenChanged {
            // On the main actor, as FirebaseAuth posts it on the main thread; the object is this Auth.
            Task { @MainActor in
                NotificationCenter.default.post(name: Self.authStateDidChangeNotification, object: self)
            }
        }
    }

    /// Posted (on the main actor, with this `Auth` as the object) whenever the ID token listeners
    /// run: a sign-in, a sign-out, a new ID token.
    public static let authStateDidChangeNotification = NSNotification.Name(
        rawValue: "FIRAuthStateDidChangeNotification")
}

extension NSNotification.Name {
    /// FirebaseAuth's Objective-C-era name of `Auth.authStateDidChangeNotification`.
    public static let AuthStateDidChange = Auth.authStateDidChangeNotification
}
