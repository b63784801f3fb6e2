"""One summary as the checks read it, each form made once per summary and only when a check
asks for it, and what it may hold (``hints``), found in one pass.

Most summaries hold nothing to find, and a regular expression that fails costs about as much as
one that matches, so each check first asks whether the words it needs are in the text at all.
``hints`` answers for every check at once: one Aho-Corasick pass over the folded text finds the
trigger words of each family (a currency, a word about the budget, a contact label, a given
name, "at" or "dot" as a word...), so a summary without a currency never tries the money
patterns after its numbers. The directory's matcher runs the same pass with its names
(``TRIGGER_WORDS`` are appended to its automaton), so a gate with a directory pays for one.
``marks`` does the same for what the checks look for as written (an honorific, "Dec", a sign,
先生, a numeral of scale), in the narrowed text, with the directory's abbreviations.
"""

from collections.abc import Iterable

import ahocorasick_rs

from .text import FOREIGN_MONTHS, MONTHS, fold, narrow
from .words import CONTACT_LABELS, GIVEN_NAMES, ROMANISED_FAMILY_NAMES


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# The trigger words of each family, in folded form (lower case, punctuation as spaces): a check
# of the family can only find something in a text whose folded form holds one of them (each
# check's module says which families it reads). Signs are tested apart (``SIGNS``).
TRIGGERS: dict[str, tuple[str, ...]] = {
    # E-mail addresses and domains spelled out ("jane (at) council", "gld dot gov"), URLs.
    "markup": (" at ", " dot ", "www"),
    # A currency written after an amount: codes (as words, or against the digits: "450hkd",
    # "hkd2"; "eur" in "european" is none), words, Chinese currencies.
    "currency": (
        *(
            form
            for code in _words("hkd usd sgd gbp eur aud cad mop cny rmb nzd jpy chf")
            for form in (
                f" {code} ",
                *(f" {code}{d}" for d in "0123456789"),
                *(f"{d}{code}" for d in "0123456789"),
            )
        ),
        *_words("dollar yuan renminbi sterling 元 币 幣 圆 圓 镑 鎊 金"),
        " pound",
        " pataca",
        " euro ",
        " euros ",
    ),
    # Words that make the next number an amount ("budget of 4.2 million", "预算约500万").
    "budget": (
        *_words("budget valu worth estimated ceiling spend funding allocation cost"),
        "sum of",
        *_words("预算 預算 金额 金額 价值 價值 造价 造價 总值 總值 合约额 合約額 标价 標價"),
        *_words("总额 總額 拨款 撥款 费用 費用 上限"),
    ),
    "contact": tuple(fold(label).strip() for label in CONTACT_LABELS),
    # Month names of the markets' other languages ("17 décembre", "17 de Dezembro").
    "month": tuple(f" {fold(month).strip()} " for month in FOREIGN_MONTHS),
    # Bodies by the shape of their names (``bodies``): "... Council", "City of ...".
    "body": (
        " council",
        *(
            f"{head} {word}"
            for head in _words(
                "city town shire municipality borough township county region district village "
                "department ministry office bureau directorate secretariat agency"
            )
            for word in ("of", "for")
        ),
        "ville de",
        " nhs ",
        *_words("區議會 区议会 市議會 市议会 區公所 区公所"),
    ),
    # Amounts in English words: "four point two million".
    "number_words": ("illion", "housand"),
    # A common given name as a word: "Mary Wong" may be a person; a Chinese family name as a
    # word: "Lee Ka Wai" may be one.
    "given_name": tuple(f" {name.lower()} " for name in sorted(GIVEN_NAMES)),
    "family_name": tuple(f" {name.lower()} " for name in sorted(ROMANISED_FAMILY_NAMES)),
}
# Signs that are no words (tested in the narrowed text): markup, e-mail addresses, URLs and
# domains with bracketed dots ("gld[.]gov[.]hk") need one; a currency sign after an amount.
SIGNS = {
    "<": "markup",
    "&": "markup",
    "@": "markup",
    "://": "markup",
    "[.]": "markup",
    "(.)": "markup",
    "{.}": "markup",
    "€": "currency",
    "£": "currency",
    "$": "currency",
    "¥": "currency",
    "￥": "currency",
}
FAMILIES = frozenset(TRIGGERS)
_PAIRS = [(family, word) for family, words in TRIGGERS.items() for word in words]
TRIGGER_WORDS = [word for _, word in _PAIRS]
FAMILY_OF = [family for family, _ in _PAIRS]
_AUTOMATON = ahocorasick_rs.AhoCorasick(TRIGGER_WORDS)

# What the checks look for as written (case-sensitive, in the narrowed text), by name: the
# ``SIGNS`` (marked with their family), honorifics, English month and weekday abbreviations
# (they start with a capital: "Dec", "DEC"), Chinese honorifics, contact words and numerals of
# scale. One Aho-Corasick pass finds them all (``marks``) where a regular expression per check
# would scan the text again each time; the directory's matcher runs the same pass with its
# abbreviations (``MARK_WORDS`` are appended to its automaton), so a gate with a directory
# pays for one.
MARKS: dict[str, tuple[str, ...]] = {
    "honorific": ("Mr", "Ms", "Miss", "Mx", "Dr", "Prof"),
    "month_abbr": tuple(sorted({m[:3] for m in MONTHS} | {m[:3].upper() for m in MONTHS})),
    "weekday": tuple(
        form for day in _words("Mon Tue Wed Thu Fri Sat Sun") for form in (day, day.upper())
    ),
    "cn_honorific": _words("先生 女士 小姐 太太"),
    "cn_label": _words("联 聯 查 负责 負責 经办 經辦 致 询 詢 洽"),
    "cn_scale": tuple("十百千万萬亿億拾佰仟"),
    "markup": tuple(sign for sign, family in SIGNS.items() if family == "markup"),
    "currency": tuple(sign for sign, family in SIGNS.items() if family == "currency"),
}
_SIGN_FAMILIES = frozenset(SIGNS.values())
_MARK_PAIRS = [(mark, word) for mark, words in MARKS.items() for word in words]
MARK_WORDS = [word for _, word in _MARK_PAIRS]
MARK_OF = [mark for mark, _ in _MARK_PAIRS]
_MARK_AUTOMATON = ahocorasick_rs.AhoCorasick(MARK_WORDS)
_NOTHING: frozenset[str] = frozenset()


class View:
    """``narrowed``: the text with full-width letters and digits as ASCII (same positions);
    ``lowered``: the narrowed text in lower case, for substring tests; ``folded``: ``fold``;
    ``printable``: no control character and no white space but plain spaces."""

    __slots__ = (
        "_folded",
        "_hints",
        "_lowered",
        "_marks",
        "_month",
        "narrowed",
        "printable",
        "text",
    )

    def __init__(self, text: str):
        self.text = text
        self.narrowed = narrow(text)
        self.printable = text.isprintable()
        self._lowered: str | None = None
        self._folded: str | None = None
        self._hints: frozenset[str] | None = None
        self._marks: frozenset[str] | None = None
        self._month: bool | None = None

    @property
    def lowered(self) -> str:
        if self._lowered is None:
            self._lowered = self.narrowed.lower()
        return self._lowered

    @property
    def folded(self) -> str:
        if self._folded is None:
            self._folded = fold(self.text)
        return self._folded

    @property
    def marks(self) -> frozenset[str]:
        """The names of ``MARKS`` whose words the narrowed text holds (set by the directory's
        matcher when it ran first)."""
        if self._marks is None:
            found = _MARK_AUTOMATON.find_matches_as_indexes(self.narrowed, overlapping=True)
            self.set_marks(index for index, _, _ in found)
        return self._marks

    def set_marks(self, found: Iterable[int]) -> None:
        """The marks from words found elsewhere (their indexes in ``MARK_WORDS``)."""
        self._marks = frozenset([MARK_OF[index] for index in found]) or _NOTHING

    @property
    def hints(self) -> frozenset[str]:
        """The families of ``TRIGGERS`` whose words the text holds, and of the ``SIGNS`` it
        has (set by the directory's matcher when it ran first)."""
        if self._hints is None:
            found = _AUTOMATON.find_matches_as_indexes(self.folded, overlapping=True)
            self.set_hints(index for index, _, _ in found)
        return self._hints

    def set_hints(self, found: Iterable[int]) -> None:
        """The hints from trigger words found elsewhere (their indexes in ``TRIGGER_WORDS``)."""
        families = frozenset([FAMILY_OF[index] for index in found])
        signs = self.marks & _SIGN_FAMILIES
        self._hints = (families | signs if signs else families) or _NOTHING

    @property
    def has_month(self) -> bool:
        """Whether a month's name may be in the text (its first three letters, "Dec", "DEC")."""
        if self._month is None:
            self._month = "month_abbr" in self.marks or "month" in self.hints
        return self._month
