"""Consistency figures of our Chinese CPV labels. Prints; asserts nothing.

    .venv/bin/python bench/vocabulary_quality.py

- *Parent and child*: for every code whose parent's English label stands whole inside its own
  ("Ultrasonic unit" under ... ; "Medical equipments" inside "Parts of medical equipments"),
  the share whose Simplified label holds the parent's Simplified label too.
- *Same term, same words*: for frequent English terms, the share of labels holding the term
  whose Simplified label holds our fixed rendering (the renderings the translators were given).
- *Distinct*: labels shared by two codes, in each script.
"""

import os
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

RENDERINGS = {
    "equipment": "设备",
    "services": "服务",
    "repair": "维修",
    "maintenance": "保养",
    "installation": "安装",
    "software": "软件",
    "vehicles": "车辆",
    "medical": "医疗",
    "construction work": "施工工程",
    "laboratory": "实验室",
    "consultancy": "咨询",
    "cleaning": "清洁",
    "furniture": "家具",
    "training": "培训",
    "computer": "计算机",
}


def main() -> None:
    from tenders.vocabulary.cpv import concepts, parent

    table = concepts()
    pairs = kept = 0
    misses = []
    for c in table.values():
        up = parent(c.code)
        if up and up.en.lower() in c.en.lower():
            pairs += 1
            if up.zh in c.zh:
                kept += 1
            elif len(misses) < 10:
                misses.append((c.en, c.zh, up.en, up.zh))
    print(f"Parent and child: {kept}/{pairs} = {100 * kept / pairs:.1f} % keep the parent's words")
    for en, zh, pen, pzh in misses:
        print(f"  {en} = {zh}   (parent {pen} = {pzh})")
    print("Same term, same words (label holding the English term -> holds the rendering):")
    for term, zh in RENDERINGS.items():
        holding = [c for c in table.values() if re.search(rf"\b{term}\b", c.en, re.I)]
        with_it = sum(zh in c.zh for c in holding)
        share = 100 * with_it / len(holding) if holding else 0
        print(f"  {term:18} {zh:6} {with_it:5}/{len(holding):<5} {share:5.1f} %")
    for lang in ("zh", "zht"):
        shared = sum(n > 1 for n in Counter(c.label(lang) for c in table.values()).values())
        print(f"Labels shared by two codes ({lang}): {shared}")


if __name__ == "__main__":
    main()
