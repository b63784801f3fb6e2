"""Which concepts a notice buys: codes first, then its title. Pure: values in, CPV codes out.

1. **Codes.** CPV as given; UNSPSC and Canada's GSIN through our concordance tables
   (``data/unspsc_cpv.tsv``, ``data/gsin_cpv.tsv``, longest prefix first).
2. **A broad code is refined by the title** (and the classification's own description): when
   the code's concept is a division or a group, or came through a concordance, a concept inside
   its subtree that the words clearly name replaces it ("Portable Diagnostic Ultrasound" under
   medical equipment becomes the ultrasonic unit). Never a concept outside the subtree.
3. **No code: the title alone**, in English, French, Portuguese or Chinese, against phrases we
   keep per concept: curated keywords (``data/keywords.tsv``), the concepts' own labels, and
   phrases learned from coded notices (``data/learned.tsv``, made by ``learn.py`` from a part of
   the samples that the accuracy bench does not measure). It abstains unless one concept wins
   clearly: a wrong concept misleads more than a broad category.

The output is only ever CPV codes of the vocabulary, with a word on how they were found.
``search`` finds concepts for staff (the admin's concept picker) by label, code or keyword.
"""

import csv
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from ..chinese import to_simplified
from .cpv import DATA, Concept, concept, concepts, in_subtree, level_of, nearest

MAX_CONCEPTS = 3
# Weights of a phrase hit, by where the phrase comes from (times its length in words).
CURATED, LEARNED, LABEL = 1.0, 3.0, 1.5
# The title alone names a concept when its best score reaches this and beats the best concept
# of another division by this ratio.
TITLE_MIN_SCORE = 5.0
TITLE_MARGIN = 2.5
# Refining a code needs less: the code already says where to look.
REFINE_MIN_SCORE = 1.5

# Words that say nothing of what is bought, in the four languages: never a phrase alone.
_STOP_WORDS = """
    a an the of for and or in on at to by with from into per as its new other all various
    misc miscellaneous general related associated services service supply supplies provision
    provide providing purchase purchasing procurement acquisition tender tenders request rfp rfq
    rfso itt rft invitation contract contracts framework agreement standing offer offers work
    works project projects program programme equipment product products goods item items
    system systems unit units part parts solution solutions support phase stage annual year
    le la les de des du d l et ou pour en au aux un une sur par avec travaux fourniture achat
    marche prestation prestations o os um uma do da dos das e para em no na com por servico
    servicos fornecimento aquisicao prestacao empreitada concurso publico
    information interest expression notice letter standing arrangement rfi rfsa rfso loi soa
    eoi npp acan initiative partnership requirement requirements option options availability
    various multiple national regional canada federal government department agency
    demande information interet avis offre permanente arrangement""".strip()
STOP = frozenset(_STOP_WORDS.split())
# Chinese runs that say nothing of what is bought on their own (a label's "（彩信）服务" leaves
# a bare 服务 once its acronym is cut out): never a phrase alone.
CHINESE_STOP = frozenset(
    [
        "服务",
        "设备",
        "用品",
        "产品",
        "系统",
        "工程",
        "材料",
        "装置",
        "器材",
        "项目",
        "供应",
        "采购",
        "提供",
        "相关",
        "其他",
        "杂项",
        "零件",
        "配件",
        "部件",
        "工作",
        "公共",
        "机构",
        "政府",
        "招标",
        "投标",
        "合同",
        "合约",
        "服务费",
        "及其",
    ]
)
# Words that make a title about a service on a thing ("Fire alarm maintenance"): such a title
# never names the thing's goods concept, only a service concept, or abstains.
_SERVICE_WORDS = """
    maintenance maintain mtc repair servicing service inspection overhaul calibration rental
    rent hire leasing lease install installation construction construct design entretien
    reparation location installation manutencao reparacao aluguer instalacao construcao
    维修 保养 维护 检修 检查 租赁 租用 安装 建造 设计"""
_WORD = re.compile(r"[a-z0-9]+")
_HAN = re.compile(r"[\u3400-\u9fff]+")


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in text if not unicodedata.combining(c))


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """Latin words of a text, folded (case, accents) and singular."""
    return [_singular(w) for w in _WORD.findall(_fold(text))]


SERVICE_WORDS = frozenset(_singular(w) for w in _SERVICE_WORDS.split())


def han(text: str) -> str:
    """The Chinese of a text in Simplified script, runs joined by a space."""
    return " ".join(_HAN.findall(to_simplified(text)))


@dataclass(frozen=True)
class Result:
    codes: tuple[str, ...]  # main concept first; empty when the classifier abstained
    how: str

    @property
    def main(self) -> str:
        return self.codes[0] if self.codes else ""


class Index:
    """Phrases per concept, looked up by their first word (Latin) or first two characters."""

    def __init__(self, entries: Iterable[tuple[str, str, float]]):
        self.latin: dict[str, list[tuple[tuple[str, ...], str, float]]] = defaultdict(list)
        self.chinese: dict[str, list[tuple[str, str, float]]] = defaultdict(list)
        for code, phrase, weight in entries:
            hanzi = han(phrase)
            if hanzi:
                for run in hanzi.split():
                    if len(run) >= 2 and run not in CHINESE_STOP:
                        self.chinese[run[:2]].append((run, code, weight))
                continue
            tokens = tuple(words(phrase))
            if not tokens or all(t in STOP for t in tokens):
                continue
            self.latin[tokens[0]].append((tokens, code, weight))

    def hits(self, text: str) -> dict[str, float]:
        """Score per concept: weight times length of each distinct phrase found."""
        scores: dict[str, float] = defaultdict(float)
        seen = set()
        tokens = words(text)
        for i, token in enumerate(tokens):
            for phrase, code, weight in self.latin.get(token, ()):
                if tuple(tokens[i : i + len(phrase)]) == phrase and (phrase, code) not in seen:
                    seen.add((phrase, code))
                    content = sum(1 for t in phrase if t not in STOP)
                    scores[code] += weight * content
        hanzi = han(text)
        for i in range(len(hanzi) - 1):
            for phrase, code, weight in self.chinese.get(hanzi[i : i + 2], ()):
                if hanzi.startswith(phrase, i) and (phrase, code) not in seen:
                    seen.add((phrase, code))
                    scores[code] += weight * len(phrase) / 2
        return scores


def _tsv(name: str) -> list[dict]:
    path = DATA / name
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def _label_parts(label: str) -> list[str]:
    """A label's parts that name a thing: "Sewage, refuse, cleaning and environmental services"
    gives "sewage", "refuse", "cleaning and environmental services" and the whole label."""
    parts = [p.strip() for p in re.split(r",|;| and | or ", label) if p.strip()]
    return [label, *parts] if len(parts) > 1 else [label]


@cache
def index(with_learned: bool = True) -> Index:
    learned = [(row["phrase"], row["code"]) for row in _tsv("learned.tsv")] if with_learned else []
    return build_index(learned)


def build_index(learned: Iterable[tuple[str, str]]) -> Index:
    """The title index: curated keywords, ``learned`` (phrase, code) pairs, and labels."""
    entries = []
    for row in _tsv("keywords.tsv"):
        if concept(row["code"]):
            entries += [(row["code"], p, CURATED) for p in row["phrases"].split("|") if p.strip()]
    entries += [(code, phrase, LEARNED) for phrase, code in learned if concept(code)]
    for c in concepts().values():
        entries.append((c.code, c.zh, LABEL))
        for part in _label_parts(c.en):
            # A one-word label part names a concept only inside a subtree (see ``refine``).
            if len([w for w in words(part) if w not in STOP]) >= 2:
                entries.append((c.code, part, LABEL))
    return Index(entries)


@cache
def label_index() -> Index:
    """Every label part, single words included: for refining inside a code's subtree."""
    entries = []
    for c in concepts().values():
        entries.append((c.code, c.zh, LABEL))
        entries += [(c.code, part, LABEL) for part in _label_parts(c.en)]
    return Index(entries)


@cache
def _concordance(name: str, column: str) -> dict[str, str]:
    return {row[column].strip().upper(): row["cpv"] for row in _tsv(name) if concept(row["cpv"])}


def _longest_prefix(table: dict[str, str], code: str) -> str:
    for size in range(len(code), 0, -1):
        if code[:size] in table:
            return table[code[:size]]
    return ""


def gsin_code(code: str, description: str) -> str:
    """A GSIN code, from its own field or the start of its description ("F029: ...")."""
    if code:
        return code.strip().upper()
    head = description.split(":", 1)[0].strip()
    return head.upper() if head and " " not in head else ""


def by_code(scheme: str, code: str, description: str = "") -> tuple[str, bool]:
    """(CPV code, whether it came through a concordance) of one classification."""
    scheme = scheme.strip().upper()
    if scheme == "CPV":
        found = nearest(code)
        return (found.code if found else ""), False
    if scheme == "UNSPSC":
        digits = "".join(c for c in code if c.isdigit())
        return _longest_prefix(_concordance("unspsc_cpv.tsv", "unspsc"), digits[:6]), True
    if scheme == "GSIN":
        table = _concordance("gsin_cpv.tsv", "gsin")
        return _longest_prefix(table, gsin_code(code, description)), True
    return "", False


def refine(code: str, text: str) -> str:
    """A more specific concept inside ``code``'s subtree that ``text`` clearly names, or
    ``code``. Curated, learned and label phrases all count; the deepest best-scoring wins."""
    scores = index().hits(text)
    for found, score in label_index().hits(text).items():
        scores[found] = max(scores.get(found, 0.0), score)
    inside = [
        (score, level_of(found), found)
        for found, score in scores.items()
        if found != code and in_subtree(found, code) and score >= REFINE_MIN_SCORE
    ]
    return max(inside)[2] if inside else code


def is_goods(code: str) -> bool:
    division = int(code[:2])
    return division < 45 or division == 48


def about_a_service(text: str) -> bool:
    found = set(words(text))
    hanzi = han(text)
    return bool(found & SERVICE_WORDS) or any(w in hanzi for w in SERVICE_WORDS if not w.isascii())


def by_title(text: str, *, with_learned: bool = True, using: Index | None = None) -> str:
    """The concept a title clearly names, or '' (abstain)."""
    scores = (using or index(with_learned)).hits(text)
    if scores and about_a_service(text):
        scores = {code: score for code, score in scores.items() if not is_goods(code)}
    if not scores:
        return ""
    ranked = sorted(scores.items(), key=lambda item: (-item[1], -level_of(item[0]), item[0]))
    best, score = ranked[0]
    # Support from concepts of the same division adds up; a rival division must be far behind.
    division_scores: dict[str, float] = defaultdict(float)
    for found, value in scores.items():
        division_scores[found[:2]] += value
    mine = division_scores[best[:2]]
    rival = max((v for d, v in division_scores.items() if d != best[:2]), default=0.0)
    if score < TITLE_MIN_SCORE or (rival and mine < TITLE_MARGIN * rival):
        return ""
    return best


def classify(
    classifications: Iterable[tuple[str, str, str]], title: str, *, with_learned: bool = True
) -> Result:
    """The notice's concepts (main first, at most three) and how they were found."""
    found: list[str] = []
    hows: list[str] = []
    for scheme, code, description in classifications:
        cpv, mapped = by_code(scheme, code, description)
        if not cpv:
            continue
        shown = gsin_code(code, description) if scheme.upper() == "GSIN" else code.strip()
        how = f"{scheme.upper()} {shown}"
        if mapped or level_of(cpv) <= 1:
            better = refine(cpv, f"{title} {description}")
            if better != cpv:
                how += f" refined by the title to {better}"
                cpv = better
        if cpv not in found:
            found.append(cpv)
            hows.append(how)
    if found:
        return Result(tuple(found[:MAX_CONCEPTS]), "code " + hows[0])
    best = by_title(title, with_learned=with_learned)
    if best:
        return Result((best,), "title")
    return Result((), "abstained")


def search(query: str, limit: int = 20) -> list[Concept]:
    """Concepts whose code or label in any language holds ``query`` (case-insensitive;
    Simplified finds Traditional and back): whole-label matches first, then shorter labels."""
    query = " ".join(query.split()).lower()
    if not query:
        return []
    simplified = to_simplified(query)
    found = {}
    for c in concepts().values():
        if c.code.startswith(query) or query in c.en.lower() or simplified in c.zh:
            exact = query in (c.en.lower(), c.zh, c.zht) or simplified == c.zh
            found[c.code] = (0 if exact else 1, len(c.en), c.code)
    # The curated keywords too: "ultrasound" finds the ultrasonic unit.
    for code, score in index().hits(query).items():
        found.setdefault(code, (2, -score, code))
    ranked = sorted(found.values())[:limit]
    return [concepts()[code] for *_, code in ranked]
