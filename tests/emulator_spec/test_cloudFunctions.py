"""firebase-tools src/emulator/auth/cloudFunctions.spec.ts: the emulator's dispatch of auth events to the Functions
emulator (trigger_multicast). A unit test of the emulator's internals with a fake Functions emulator, not of the
Auth wire protocol; kept as a named skip so the per-file count stays complete."""
from conftest import not_applicable


@not_applicable("dispatch to the Cloud Functions emulator's trigger_multicast; Hearth has no Functions emulator "
                "integration (blocking functions are covered by the other files)")
def test_dispatch_to_functions_emulator():
    pass
