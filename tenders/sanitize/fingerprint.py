"""What the gate's decision on a record depends on besides the record itself.

Anything that can change a finding is part of the fingerprint: the rules (``GATE_VERSION``,
bumped with every change to the detectors or the secrets' variants) and the data the gate reads
(the directory of public bodies, the curators' allow-lists). The gate's cache in each process
holds while it is unchanged (``loading.gate_fingerprint`` reads the data's part). Publication
is finer (``publication.sources``): a rule change plans every row again, while a change of the
data plans again only the rows it can affect.
"""

# Bump on any change to what the gate finds: planned rows kept from before are then replanned.
# 2: the second edition (directory of public bodies, issue #15 classes, allow-lists).
# 3: bodies by the shape of their names, people without a label, more money, date and
#    reference forms, bracketed dots, a wider seed list (more verdicts change).
# 4: a day after a weekday ("Thursday 17th"), Chinese names after a contact word.
# 5: the coverage check (words outside the public vocabulary) on every record.
GATE_VERSION = 5


def fingerprint_of(directory: str, allowances: str) -> str:
    """The gate's fingerprint from the fingerprints of its directory and allow-lists."""
    return f"gate-{GATE_VERSION}:{directory}:{allowances}"
