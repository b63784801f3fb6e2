"""How well the sanitization gate separates secrets from clean text: prints its rates.

Runs the gate (with the seed directory plus the suite's imported names, as publication would)
over both planted-secret suites and clean corpora: ``tests/gate_corpus.py`` (the first) and
``tests/gate_corpus_b.py`` (written independently, to measure how the rules generalise):

- planted secrets missed (must be 0), by class;
- false positives on clean text: plain summaries (must be 0) and summaries with technical
  codes (must be at most 2 %), each listed with what was found.

    .venv/bin/python bench/gate_accuracy.py [-v]
"""

import os
import sys
from pathlib import Path

# GATE_TREE: measure the gate of another checkout (its ``tenders``) with this tree's suites.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if os.environ.get("GATE_TREE"):
    sys.path.insert(0, os.environ["GATE_TREE"])

from tenders.sanitize import Gate
from tests.gate_corpus import PLAIN, clean_corpus, directory_entries, planted, record_secrets
from tests.gate_corpus_b import clean_b, planted_b


def caught(gate: Gate, item) -> bool:
    start = item.text.index(item.secret)
    end = start + len(item.secret)
    findings = gate.scan({item.lang: item.text}, record_secrets(item))
    return any(f.start < end and start < f.end for f in findings)


def report(gate: Gate, title: str, items, corpus, verbose: bool) -> None:
    missed = [item for item in items if not caught(gate, item)]
    by_class: dict[str, list[int]] = {}
    for item in items:
        by_class.setdefault(item.cls, [0, 0])[0] += 1
    for item in missed:
        by_class[item.cls][1] += 1
    print(f"{title}: planted secrets {len(items)}, missed {len(missed)}")
    for cls, (total, lost) in sorted(by_class.items()):
        print(f"  {cls:20s} {total:4d} planted, {lost} missed")
    for item in missed:
        print(f"  MISSED {item.cls}: {item.secret!r} in {item.text!r}")
    noisy = {True: [], False: []}
    for lang, text, technical in corpus:
        findings = gate.scan({lang: text}, PLAIN)
        if findings:
            noisy[technical].append((text, [f.describe() for f in findings]))
    for technical, label in ((False, "plain"), (True, "technical")):
        total = sum(t == technical for _, _, t in corpus)
        rate = len(noisy[technical]) / total * 100
        print(f"  clean {label:9s} {total} summaries, {len(noisy[technical])} held ({rate:.1f} %)")
        if verbose or technical is False:
            for text, found in noisy[technical]:
                print(f"    HELD {text!r}: {found}")


def main() -> None:
    verbose = "-v" in sys.argv
    gate = Gate.of_names(directory_entries())
    report(gate, "suite A (tests/gate_corpus.py)", planted(), clean_corpus(), verbose)
    report(gate, "suite B (tests/gate_corpus_b.py)", planted_b(), clean_b(), verbose)


if __name__ == "__main__":
    main()
