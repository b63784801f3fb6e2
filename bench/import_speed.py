"""How long an import takes and how much memory it needs: prints figures, asserts nothing.

Cases, each in a fresh child process (so its peak memory is its own), on the database of
``DATABASE_URL`` (use your own, e.g. ``tenders_bench_<you>``; imported records are deleted
first):

- ``ca``: the Canadian 2014 file (5,513 releases), then the same file again (all unchanged);
- ``synthetic N``: N releases built from the samples (every CA, GB, AU and fictional release,
  cycled with new ocids; the fictional procedure keeps its six releases to merge), written to a
  gzipped package first; run at two sizes so time and memory can be compared with size.

The baseline, in the same session, is reading alone: the same source streamed and grouped by
procedure without touching the database, so the ratio shows what the import adds to parsing.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tenders_bench_import \\
        .venv/bin/python bench/import_speed.py [N ...]     (default: 25000 100000)
"""

import gzip
import json
import os
import resource
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ocds"
CA = DATA / "ca-buyandsell-tenders-2014" / "tenders_releases.json.gz"


def setup_django() -> None:
    """Settings as deployed: DEBUG off (with DEBUG on, Django keeps the SQL of recent queries,
    bulk inserts included, which is memory a real import never holds)."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    os.environ.setdefault("TENDERS_SORT_KEY_SECRET", secrets.token_hex(32))
    import django

    django.setup()


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(case: str, location: str, market: str) -> None:
    """One measurement, printed as a JSON line."""
    setup_django()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from tenders.importers import ocds
    from tenders.importers.service import import_notices
    from tenders.importers.sources import group_pieces
    from tenders.models import ImportRun, SourceTender

    cpu = cpu_seconds()
    if case == "read":
        started = time.perf_counter()
        groups = sum(1 for _ in group_pieces(ocds.pieces(location), on_item=lambda _: True))
        print(json.dumps({"seconds": time.perf_counter() - started, "groups": groups,
                          "cpu": cpu_seconds() - cpu, "peak_mb": peak_mb()}))  # fmt: skip
        return
    if case == "clean":
        SourceTender.objects.filter(imported__isnull=False).delete()
        ImportRun.objects.all().delete()
        print("{}")
        return
    cpu = cpu_seconds()
    started = time.perf_counter()
    run = import_notices("ocds", location, market=market)
    print(
        json.dumps(
            {
                "seconds": time.perf_counter() - started,
                "cpu": cpu_seconds() - cpu,
                "peak_mb": peak_mb(),
                "read": run.read,
                "created": run.created,
                "unchanged": run.unchanged,
                "failed": run.failed,
                "state": run.state,
            }
        )
    )


def measure(case: str, location: str, market: str) -> dict:
    if case == "fresh":  # imported records are deleted first, in a process of their own
        measure("clean", location, market)
    output = subprocess.run(
        [sys.executable, __file__, "--child", case, location, market],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def sample_releases() -> list[dict]:
    """Every tender release of the samples, in file order (the fictional one whole)."""
    releases = json.loads(gzip.decompress(CA.read_bytes()))["releases"]
    for folder in ("gb-contracts-finder", "au-nsw-etendering", "fictional-example-1.1"):
        for path in sorted((DATA / folder).glob("*.json")):
            data = json.loads(path.read_text())
            releases += data.get("releases", [data])
    return releases


def write_synthetic(path: Path, count: int, releases: list[dict]) -> None:
    """``count`` releases as one gzipped package, streamed out (never built whole)."""
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as out:
        out.write('{"uri": "synthetic", "releases": [\n')
        for n in range(count):
            base = releases[n % len(releases)]
            cycle = n // len(releases)
            item = dict(base, ocid=f"{base['ocid']}-s{cycle}", id=f"{base.get('id')}-s{cycle}")
            out.write(("," if n else "") + json.dumps(item) + "\n")
        out.write("]}\n")


def row(label: str, result: dict, baseline: float | None = None) -> None:
    ratio = f"  ({result['seconds'] / baseline:.1f}x reading alone)" if baseline else ""
    counts = ""
    if "created" in result:
        counts = (
            f"  read {result['read']:,}, created {result['created']:,}, "
            f"unchanged {result['unchanged']:,}, failed {result['failed']}"
        )
    print(
        f"{label:<34} {result['seconds']:7.1f} s (CPU {result['cpu']:6.1f} s)  "
        f"peak {result['peak_mb']:5.0f} MB{ratio}{counts}",
        flush=True,
    )


def main(sizes: list[int]) -> None:
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    read_ca = measure("read", str(CA), "CA")
    row("CA 2014: reading alone", read_ca)
    row("CA 2014: import (5,513 releases)", measure("fresh", str(CA), "CA"), read_ca["seconds"])
    row("CA 2014: again, all unchanged", measure("again", str(CA), "CA"), read_ca["seconds"])
    releases = sample_releases()
    with tempfile.TemporaryDirectory(prefix="tenders-bench-") as folder:
        for size in sizes:
            path = Path(folder) / f"synthetic-{size}.json.gz"
            write_synthetic(path, size, releases)
            read = measure("read", str(path), "GB")
            row(f"synthetic {size:,}: reading alone", read)
            row(f"synthetic {size:,}: import", measure("fresh", str(path), "GB"), read["seconds"])
            path.unlink()
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(*sys.argv[2:5])
    else:
        main([int(a) for a in sys.argv[1:]] or [25_000, 100_000])
