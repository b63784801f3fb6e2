"""Learn title phrases from coded notices: ``python -m tenders.vocabulary.learn``.

Reads the coded samples (``samples.py``), keeps only the notices that are *not* held out, and
writes ``data/learned.tsv``: each word or pair of words of the titles that at least
``SUPPORT`` notices share and that points to one concept. The phrase names the most common
code of those notices when ``SAME_CODE`` of them share it, else their group when ``SAME_GROUP``
share it; phrases that point nowhere are dropped. Deterministic: the same samples give the same
file. Only codes come out, so nothing of a title is ever published.
"""

import csv
from collections import Counter, defaultdict
from itertools import pairwise

from .classify import STOP, words
from .cpv import DATA, concept, group

SUPPORT = 3
SAME_CODE = 0.7
SAME_GROUP = 0.85


def phrases(title: str) -> set[str]:
    tokens = [t for t in words(title) if len(t) > 2 and t.isalpha() and t not in STOP]
    return set(tokens) | {f"{a} {b}" for a, b in pairwise(tokens)}


def learn(training) -> list[tuple[str, str, int]]:
    """(phrase, code, support) from (title, truth code) pairs."""
    seen: dict[str, Counter] = defaultdict(Counter)
    for title, truth in training:
        for phrase in phrases(title):
            seen[phrase][truth] += 1
    learned = []
    for phrase, codes in sorted(seen.items()):
        total = sum(codes.values())
        if total < SUPPORT:
            continue
        code, count = codes.most_common(1)[0]
        if count / total >= SAME_CODE:
            learned.append((phrase, code, total))
            continue
        groups = Counter()
        for found, n in codes.items():
            groups[group(found)] += n
        top, count = groups.most_common(1)[0]
        if count / total >= SAME_GROUP and concept(top):
            learned.append((phrase, top, total))
    return learned


def main() -> None:
    from .samples import samples

    training = [(s.notice.title, s.truth) for s in samples() if s.truth and not s.held_out]
    learned = learn(training)
    path = DATA / "learned.tsv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", quoting=csv.QUOTE_NONE, lineterminator="\n")
        writer.writerow(("phrase", "code", "support"))
        writer.writerows(learned)
    print(f"{path}: {len(learned)} phrases from {len(training)} coded titles (held-out excluded)")


if __name__ == "__main__":
    main()
