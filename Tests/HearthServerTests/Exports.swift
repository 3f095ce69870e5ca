// The helpers this target's tests have always used unqualified (`Harness`, `Client`, `SMTPSink`,
// `TestIdentityProvider`, `testLogger`…) live in HearthTestSupport; re-exported so no test file needs the import.
@_exported import HearthTestSupport
