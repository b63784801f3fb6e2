"""How long the sanitization gate takes per record: prints microseconds per record.

Runs ``scan`` over the three summaries of every approved demo record, the way publication does
(secrets built per record, needles included), after one warm-up pass that fills the caches
of buyer names, dates and amounts as a long publication would.

    .venv/bin/python bench/sanitize_speed.py [records]
"""

import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tenders.demo import demo_records  # noqa: E402
from tenders.sanitize import RecordSecrets, scan  # noqa: E402

AT = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    records = [r for r in demo_records(count, seed=7, at=AT) if r.status == "approved"]
    clean = [r for r in records if "Enquiries to" not in r.summary_en and "tenders@" not in r.summary_en]

    def run(batch) -> float:
        started = time.perf_counter()
        for r in batch:
            scan(
                {"en": r.summary_en, "zh": r.summary_zh, "zht": r.summary_zht},
                RecordSecrets.of(r),
            )
        return (time.perf_counter() - started) / len(batch) * 1e6

    run(records)  # warm-up
    rounds = [run(clean) for _ in range(3)]
    dirty = [r for r in records if r not in clean]
    print(f"clean records: {len(clean):,}; median of 3 rounds: {statistics.median(rounds):.1f} µs/record")
    print(f"planted slips: {len(dirty):,}; {run(dirty):.1f} µs/record")
    print(f"all approved:  {len(records):,}; {run(records):.1f} µs/record")


if __name__ == "__main__":
    main()
