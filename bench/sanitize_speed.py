"""How long the sanitization gate takes per record: prints microseconds per record.

Runs the gate over the three summaries of every approved demo record the way publication does,
with a directory of thousands of names (the seed list plus synthetic imported bodies and
contacts, in English and Chinese), after a warm-up pass that fills the caches (buyer names,
dates) as a long publication would. Prints the scan alone (needles included), the scan with
``RecordSecrets.of`` (which also reads contact and body names from the private notice text),
the same without a directory, the time to build the gate, plus the load average and a
calibration loop so figures from machines of different speed, or a busy one, can be compared.

``--baseline REF`` (e.g. ``main``) measures the gate of that git revision side by side: each
tree runs in its own process (its own ``tenders`` package), the rounds alternate between them,
and the best round of each is printed with the ratio, so a busy machine slows both alike.

    .venv/bin/python bench/sanitize_speed.py [--baseline REF] [records] [directory names]
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import time
import timeit
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AT = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)
ROUNDS = 7
MEASURES = ("scan", "with_secrets", "no_directory")

SYLLABLES = ["ka", "lo", "ren", "tam", "vi", "sor", "bel", "mar", "dun", "hal", "wick", "ton"]
HEADS = ["District Council", "Water Authority", "Health Trust", "Transit Agency", "Board"]
HANZI = "东南西北山水林港湾新安和平丰盛德福"


def planted(record) -> bool:
    return "Enquiries to" in record.summary_en or "Contact tenders@" in record.summary_en


def synthetic_directory(count: int, rng: random.Random, NameEntry, to_traditional) -> list:
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


class Bench:
    """One tree's gate, its records and its directory, ready to be timed round after round."""

    def __init__(self, count: int, names: int):
        from tenders.chinese import to_traditional
        from tenders.demo import demo_records
        from tenders.sanitize import NO_DIRECTORY, Gate, NameEntry, RecordSecrets
        from tenders.sanitize.names import seed_entries

        self.RecordSecrets, self.no_directory = RecordSecrets, NO_DIRECTORY
        records = [r for r in demo_records(count, seed=7, at=AT) if r.status == "approved"]
        self.clean = [r for r in records if not planted(r)]
        self.dirty = [r for r in records if planted(r)]
        self.secrets = [RecordSecrets.of(r) for r in self.clean]
        started = time.process_time()
        directory = synthetic_directory(names, random.Random(15), NameEntry, to_traditional)
        self.gate = Gate.of_names([*seed_entries(), *directory])
        self.gate.matcher  # noqa: B018 (built on first use; timed here)
        self.build = time.process_time() - started
        self.per_record(self.gate, self.clean, self.secrets, build=True)  # warm-up

    def per_record(self, gate, records, secrets, build: bool) -> float:
        started = time.process_time()
        for record, known in zip(records, secrets, strict=True):
            gate.scan(
                {"en": record.summary_en, "zh": record.summary_zh, "zht": record.summary_zht},
                self.RecordSecrets.of(record) if build else known,
            )
        return (time.process_time() - started) / len(records) * 1e6

    def measure(self, what: str) -> float:
        if what == "scan":
            return self.per_record(self.gate, self.clean, self.secrets, build=False)
        if what == "with_secrets":
            return self.per_record(self.gate, self.clean, self.secrets, build=True)
        if what == "no_directory":
            return self.per_record(self.no_directory, self.clean, self.secrets, build=True)
        if what == "slips":
            dirty = [self.RecordSecrets.of(r) for r in self.dirty]
            return self.per_record(self.gate, self.dirty, dirty, build=False)
        raise ValueError(what)

    def facts(self) -> dict:
        return {
            "patterns": len(self.gate.patterns),
            "build": self.build,
            "clean": len(self.clean),
            "dirty": len(self.dirty),
        }


def calibration() -> float:
    loop = timeit.repeat("sum(range(100))", number=100_000, repeat=5, timer=time.process_time)
    return min(loop) / 100_000 * 1e6


def serve(tree: str, count: int, names: int) -> None:
    """Worker mode: import the gate of ``tree``, then time one measure per line of input."""
    sys.path.insert(0, tree)
    bench = Bench(count, names)
    print(json.dumps(bench.facts()), flush=True)
    for line in sys.stdin:
        print(json.dumps(bench.measure(line.strip())), flush=True)


def export_tree(ref: str, into: str) -> None:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "tenders"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)


class Worker:
    def __init__(self, tree: str, count: int, names: int):
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", tree, str(count), str(names)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.facts = json.loads(self.process.stdout.readline())

    def measure(self, what: str) -> float:
        self.process.stdin.write(what + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def side_by_side(ref: str, count: int, names: int) -> None:
    with tempfile.TemporaryDirectory(prefix="gate-baseline-") as base:
        export_tree(ref, base)
        workers = {ref: Worker(base, count, names), "this tree": Worker(str(ROOT), count, names)}
        best = {(label, what): float("inf") for label in workers for what in MEASURES}
        # Rounds alternate between the trees: load on a shared machine slows both alike.
        for _ in range(ROUNDS):
            for what in MEASURES:
                for label, worker in workers.items():
                    best[label, what] = min(best[label, what], worker.measure(what))
        for worker in workers.values():
            worker.close()
    facts = workers["this tree"].facts
    print(f"clean records:      {facts['clean']:,} (best of {ROUNDS} alternating rounds)")
    print(f"{'µs/record':20s}{ref:>12s}{'this tree':>12s}{'ratio':>8s}")
    for what, label in zip(
        MEASURES, ("scan (3 summaries)", "+ RecordSecrets.of", "  without directory"), strict=True
    ):
        before, after = best[ref, what], best["this tree", what]
        print(f"{label:20s}{before:12.1f}{after:12.1f}{after / before:8.2f}")
    for label, worker in workers.items():
        f = worker.facts
        print(f"directory ({label}): {f['patterns']:,} patterns, built in {f['build']:.2f} s")
    print(f"calibration:        sum(range(100)) takes {calibration():.2f} µs on this machine")
    print("load average:       {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


def alone(count: int, names: int) -> None:
    sys.path.insert(0, str(ROOT))
    bench = Bench(count, names)
    # CPU time of this process, the fastest of several rounds: other work on a shared machine
    # only ever adds time.
    best = {what: min(bench.measure(what) for _ in range(ROUNDS)) for what in MEASURES}
    slips = bench.measure("slips")
    patterns = len(bench.gate.patterns)
    print(f"directory:          {patterns:,} patterns, built in {bench.build:.2f} s")
    print(f"clean records:      {len(bench.clean):,}")
    print(f"scan (3 summaries): {best['scan']:.1f} µs/record (best of {ROUNDS} rounds)")
    print(f"+ RecordSecrets.of: {best['with_secrets']:.1f} µs/record")
    print(f"  without directory: {best['no_directory']:.1f} µs/record")
    print(f"planted slips:      {len(bench.dirty):,} records, {slips:.1f} µs/record")
    print(f"calibration:        sum(range(100)) takes {calibration():.2f} µs on this machine")
    print("load average:       {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--serve"]:
        serve(args[1], int(args[2]), int(args[3]))
        return
    ref = None
    if args[:1] == ["--baseline"]:
        ref, args = args[1], args[2:]
    count = int(args[0]) if args else 20_000
    names = int(args[1]) if len(args) > 1 else 5_000
    if ref:
        side_by_side(ref, count, names)
    else:
        alone(count, names)


if __name__ == "__main__":
    main()
