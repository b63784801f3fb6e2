"""How long the sanitization gate takes per record: prints microseconds per record.

Runs the gate over the three summaries of every approved demo record the way publication does,
with a directory of thousands of names (the seed list plus synthetic imported bodies and
contacts, in English and Chinese), after a warm-up pass that fills the caches (buyer names,
dates) as a long publication would. Prints the scan alone (needles included), the scan with
``RecordSecrets.of`` (which also reads contact and body names from the private notice text),
the same without a directory, the time to build the gate, plus the load average and a
calibration loop so figures from machines of different speed, or a busy one, can be compared.

    .venv/bin/python bench/sanitize_speed.py [records] [directory names]
"""

import os
import random
import sys
import time
import timeit
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tenders.chinese import to_traditional
from tenders.demo import demo_records
from tenders.sanitize import NO_DIRECTORY, Gate, NameEntry, RecordSecrets
from tenders.sanitize.names import seed_entries

AT = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)


def planted(record) -> bool:
    return "Enquiries to" in record.summary_en or "Contact tenders@" in record.summary_en


SYLLABLES = ["ka", "lo", "ren", "tam", "vi", "sor", "bel", "mar", "dun", "hal", "wick", "ton"]
HEADS = ["District Council", "Water Authority", "Health Trust", "Transit Agency", "Board"]
HANZI = "东南西北山水林港湾新安和平丰盛德福"


def synthetic_directory(count: int, rng: random.Random) -> list[NameEntry]:
    """``count`` imported names: bodies in English and Chinese, and contact people."""
    entries = []
    for n in range(count):
        place = "".join(rng.choice(SYLLABLES) for _ in range(3)).title()
        if n % 3 == 0:
            name = place + " " + rng.choice(HEADS)
        elif n % 3 == 1:
            name = "".join(rng.choice(HANZI) for _ in range(3)) + rng.choice(["区议会", "水务局"])
            name = to_traditional(name) if n % 2 else name
        else:
            name = f"{place} {rng.choice(SYLLABLES).title()}"
        kind = "person" if n % 3 == 2 else "body"
        entries.append(NameEntry(name, "HK", kind, "full", name, False))
    return entries


def per_record(gate, records, secrets, build: bool) -> float:
    started = time.process_time()
    for record, known in zip(records, secrets, strict=True):
        gate.scan(
            {"en": record.summary_en, "zh": record.summary_zh, "zht": record.summary_zht},
            RecordSecrets.of(record) if build else known,
        )
    return (time.process_time() - started) / len(records) * 1e6


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    names = int(sys.argv[2]) if len(sys.argv) > 2 else 5_000
    records = [r for r in demo_records(count, seed=7, at=AT) if r.status == "approved"]
    clean = [r for r in records if not planted(r)]
    secrets = [RecordSecrets.of(r) for r in clean]
    started = time.process_time()
    gate = Gate.of_names([*seed_entries(), *synthetic_directory(names, random.Random(15))])
    gate.matcher  # noqa: B018 (built on first use; timed here)
    build = time.process_time() - started
    per_record(gate, clean, secrets, build=True)  # warm-up
    # CPU time of this process, the fastest of several rounds: other work on a shared machine
    # only ever adds time.
    scan_only = min(per_record(gate, clean, secrets, build=False) for _ in range(7))
    with_secrets = min(per_record(gate, clean, secrets, build=True) for _ in range(7))
    no_directory = min(per_record(NO_DIRECTORY, clean, secrets, build=True) for _ in range(7))
    dirty = [r for r in records if planted(r)]
    slips = per_record(gate, dirty, [RecordSecrets.of(r) for r in dirty], build=False)
    loop = (
        min(timeit.repeat("sum(range(100))", number=100_000, repeat=5, timer=time.process_time))
        / 100_000
        * 1e6
    )
    print(f"directory:          {len(gate.patterns):,} patterns, built in {build:.2f} s")
    print(f"clean records:      {len(clean):,}")
    print(f"scan (3 summaries): {scan_only:.1f} µs/record (best of 7 rounds)")
    print(f"+ RecordSecrets.of: {with_secrets:.1f} µs/record")
    print(f"  without directory: {no_directory:.1f} µs/record")
    print(f"planted slips:      {len(dirty):,} records, {slips:.1f} µs/record")
    print(f"calibration:        sum(range(100)) takes {loop:.2f} µs on this machine")
    print("load average:       {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
