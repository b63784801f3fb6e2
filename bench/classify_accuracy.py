"""How well the title classifier names concepts, on coded notices it did not learn from.

    .venv/bin/python bench/classify_accuracy.py [--all] [--no-learned] [--show N]

Reads the coded public samples in ``../shared/data`` (GB and AU OCDS, Canada's 2014 tenders,
the EU eForms notices), hides each notice's codes and asks the classifier for a concept from
the title alone. The truth is the concept the notice's own codes give (CPV as given; UNSPSC and
GSIN through our concordance tables). By default only the held-out part (``samples.held_out``,
30 % by a hash of the notice id) is measured: the learned phrases never saw it. Per source it
prints coverage (share of notices it names a concept for) and precision where it names one: at
division (2 digits), at group (3 digits, where both codes are at least groups) and at class (4
digits, likewise). Then the same for refining a code: how often the title moves a broad code to
a more specific concept. Not part of the tests: it prints figures, it asserts nothing.
"""

import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--all", action="store_true", help="measure every notice, not only held-out"
    )
    parser.add_argument("--no-learned", action="store_true", help="without the learned phrases")
    parser.add_argument("--show", type=int, default=0, help="print N wrong answers per source")
    parser.add_argument(
        "--tune",
        action="store_true",
        help="never read the held-out part: learn from two thirds of the rest, measure on the "
        "other third (for choosing thresholds and keywords)",
    )
    parser.add_argument("--min-score", type=float, help="try another TITLE_MIN_SCORE")
    parser.add_argument("--margin", type=float, help="try another TITLE_MARGIN")
    args = parser.parse_args()

    from tenders.vocabulary import classify

    if args.min_score is not None:
        classify.TITLE_MIN_SCORE = args.min_score
    if args.margin is not None:
        classify.TITLE_MARGIN = args.margin

    from tenders.vocabulary.classify import build_index, by_title, refine
    from tenders.vocabulary.cpv import concept, level_of
    from tenders.vocabulary.learn import learn
    from tenders.vocabulary.samples import held_out, samples

    using = None
    every = [s for s in samples() if s.truth]
    if args.tune:
        every = [s for s in every if not s.held_out]
        fold = [s for s in every if held_out("tune:" + s.notice.notice_id)]
        rest = [s for s in every if not held_out("tune:" + s.notice.notice_id)]
        learned = learn([(s.notice.title, s.truth) for s in rest])
        using = build_index([(phrase, code) for phrase, code, _ in learned])
        every = fold

    stats: dict[str, dict] = defaultdict(lambda: defaultdict(int))
    wrong: dict[str, list] = defaultdict(list)
    for sample in every:
        if not (args.all or args.tune or sample.held_out):
            continue
        s, truth, title = stats[sample.source], sample.truth, sample.notice.title
        s["notices"] += 1
        guess = by_title(title, with_learned=not args.no_learned, using=using)
        if guess:
            s["named"] += 1
            s["division_ok"] += guess[:2] == truth[:2]
            if level_of(guess) >= 1 and level_of(truth) >= 1:
                s["group_n"] += 1
                s["group_ok"] += guess[:3] == truth[:3]
            if level_of(guess) >= 2 and level_of(truth) >= 2:
                s["class_n"] += 1
                s["class_ok"] += guess[:4] == truth[:4]
            if guess[:2] != truth[:2]:
                wrong[sample.source].append((title, guess, truth))
        if level_of(truth) <= 1 or sample.source in ("AU", "CA"):
            s["refinable"] += 1
            s["refined"] += refine(truth, title) != truth

    def pct(a: int, b: int) -> str:
        return f"{100 * a / b:5.1f} % ({a}/{b})" if b else "    - "

    part = "all notices" if args.all else "held-out notices only"
    if args.tune:
        part = "a third of the training part (learned from the other two thirds)"
    learned = "without" if args.no_learned else "with"
    print(f"Title classifier, {part}, {learned} learned phrases")
    columns = ("coverage", "division", "group", "class")
    print(f"{'source':6} {'notices':>7}  " + "  ".join(f"{c:>20}" for c in columns))
    total: dict[str, int] = defaultdict(int)
    for source in sorted(stats):
        s = stats[source]
        for key, value in s.items():
            total[key] += value
        print(
            f"{source:6} {s['notices']:7}  {pct(s['named'], s['notices']):>20}  "
            f"{pct(s['division_ok'], s['named']):>20}  {pct(s['group_ok'], s['group_n']):>20}  "
            f"{pct(s['class_ok'], s['class_n']):>20}"
        )
    print(
        f"{'all':6} {total['notices']:7}  {pct(total['named'], total['notices']):>20}  "
        f"{pct(total['division_ok'], total['named']):>20}  "
        f"{pct(total['group_ok'], total['group_n']):>20}  "
        f"{pct(total['class_ok'], total['class_n']):>20}"
    )
    print(
        f"Codes refined by the title (broad CPV, or through a concordance): "
        f"{pct(total['refined'], total['refinable'])}"
    )
    for source, rows in wrong.items():
        for title, guess, truth in rows[: args.show]:
            g, t = concept(guess), concept(truth)
            print(f"  {source} {title[:60]!r}: {g.code} {g.en[:30]} / truth {t.code} {t.en[:30]}")


if __name__ == "__main__":
    main()
