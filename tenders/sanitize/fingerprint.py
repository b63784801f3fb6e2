"""What the gate's decision on a record depends on besides the record itself.

Publication reuses a record's planned row from an earlier issue only while this fingerprint is
unchanged, so anything that can change a finding must be part of it: the rules (``GATE_VERSION``,
bumped with every change to the detectors or the secrets' variants) and the data the gate reads
(the directory of public bodies; allow-lists as they come).
"""

# Bump on any change to what the gate finds: planned rows kept from before are then replanned.
GATE_VERSION = 1


def gate_fingerprint() -> str:
    # Imported here: the gate itself is pure and runs in worker processes without Django.
    from ..directory import directory_fingerprint

    return f"gate-{GATE_VERSION}:{directory_fingerprint()}"
