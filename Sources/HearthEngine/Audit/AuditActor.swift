/// Who is making an administrative change, as the audit log records it.
///
/// The engine's admin use cases read `AuditActor.current` to attribute the event they record, so the
/// admin routes, the CLI and the console bind it around their calls instead of passing it through
/// every use case's signature.
public struct AuditActor: Sendable, Equatable {
    public enum Kind: String, Sendable { case serviceAccount, consoleAdmin, cli, emulatorOwner, endUser, system }
    public var kind: Kind
    public var id: String              // service-account e-mail, console admin e-mail, "cli", uid …
    public var clientAddress: String?  // as ClientAddress resolved it
    public init(kind: Kind, id: String, clientAddress: String?) {
        self.kind = kind
        self.id = id
        self.clientAddress = clientAddress
    }
    /// Bound by whoever calls an engine use case on an operator's behalf (admin routes, the CLI, the console);
    /// the engine's use cases record their audit event with it.
    @TaskLocal public static var current: AuditActor?
}
