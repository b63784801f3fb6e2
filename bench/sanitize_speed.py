"""How long the sanitization gate takes per record: prints microseconds per record.

Runs ``scan`` over the three summaries of every approved demo record the way publication does,
after a warm-up pass that fills the caches (buyer names, dates) as a long publication would.
Prints two figures: the scan alone (needles included) and with ``RecordSecrets.of`` (which
also reads contact names from the private notice text), plus a calibration loop so figures
from machines of different speed, or a busy one, can be compared.

    .venv/bin/python bench/sanitize_speed.py [records]
"""

import sys
import time
import timeit
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tenders.demo import demo_records
from tenders.sanitize import RecordSecrets, scan

AT = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)


def planted(record) -> bool:
    return "Enquiries to" in record.summary_en or "Contact tenders@" in record.summary_en


def per_record(records, secrets, build: bool) -> float:
    started = time.process_time()
    for record, known in zip(records, secrets, strict=True):
        scan(
            {"en": record.summary_en, "zh": record.summary_zh, "zht": record.summary_zht},
            RecordSecrets.of(record) if build else known,
        )
    return (time.process_time() - started) / len(records) * 1e6


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    records = [r for r in demo_records(count, seed=7, at=AT) if r.status == "approved"]
    clean = [r for r in records if not planted(r)]
    secrets = [RecordSecrets.of(r) for r in clean]
    per_record(clean, secrets, build=True)  # warm-up
    # CPU time of this process, the fastest of several rounds: other work on a shared machine
    # only ever adds time.
    scan_only = min(per_record(clean, secrets, build=False) for _ in range(7))
    with_secrets = min(per_record(clean, secrets, build=True) for _ in range(7))
    dirty = [r for r in records if planted(r)]
    slips = per_record(dirty, [RecordSecrets.of(r) for r in dirty], build=False)
    loop = (
        min(timeit.repeat("sum(range(100))", number=100_000, repeat=5, timer=time.process_time))
        / 100_000
        * 1e6
    )
    print(f"clean records:      {len(clean):,}")
    print(f"scan (3 summaries): {scan_only:.1f} µs/record (best of 7 rounds)")
    print(f"+ RecordSecrets.of: {with_secrets:.1f} µs/record")
    print(f"planted slips:      {len(dirty):,} records, {slips:.1f} µs/record")
    print(f"calibration:        sum(range(100)) takes {loop:.2f} µs on this machine")


if __name__ == "__main__":
    main()
