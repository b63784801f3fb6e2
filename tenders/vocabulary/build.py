"""Rewrite ``data/cpv.tsv``: ``python -m tenders.vocabulary.build [ZH_FILES...]``.

The Simplified labels are ours (written per code, reviewed); the Traditional labels are always
``chinese.to_traditional`` of them (Hong Kong wording), except where ``data/zht_overrides.tsv``
gives a reviewed label. With files of ``code<TAB>simplified label`` lines, those labels replace
the ones kept; without, the Traditional column is made again (after a change of the phrase table
or of OpenCC). ``tests/test_vocabulary.py`` fails when the file and this rule disagree.
"""

import csv
import sys

from ..chinese import to_traditional
from .cpv import DATA

HEADER = ("code", "label_en", "label_zh", "label_zht")


def overrides() -> dict[str, str]:
    with (DATA / "zht_overrides.tsv").open(encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return {row["code"]: row["label_zht"] for row in rows}


def traditional(code: str, zh: str, fixed: dict[str, str]) -> str:
    return fixed.get(code) or to_traditional(zh)


def main(paths: list[str]) -> None:
    path = DATA / "cpv.tsv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    new = {}
    for name in paths:
        with open(name, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    code, label = line.rstrip("\n").split("\t")
                    new[code] = label.strip()
    fixed = overrides()
    out = []
    for code, en, zh, _ in rows:
        zh = new.get(code, zh)
        out.append((code, en, zh, traditional(code, zh, fixed)))
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", quoting=csv.QUOTE_NONE, lineterminator="\n")
        writer.writerow(HEADER)
        writer.writerows(out)
    print(f"{path}: {len(out)} concepts, {len(new)} Simplified labels replaced")


if __name__ == "__main__":
    main(sys.argv[1:])
