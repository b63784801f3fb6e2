"""People named in public text, whoever the record is: after an honorific (``Mr Ian Hewitson``,
``陈先生``), after a contact label (``contact Peter Tan``, ``联系人 李小明``), or a known given
name beside a known family name (``Mary Wong``). Brands that look like people (``Dr Martens``)
and honorifics used as words (女士制服, ladies' uniforms) are not people.
"""

import re
from collections.abc import Iterator

from .text import MONTHS
from .view import View
from .words import (
    AMBIGUOUS_GIVEN,
    BRAND_PERSONS,
    CHINESE_FAMILY_NAMES,
    CONTACT_LABELS,
    FAMILY_NAMES,
    GIVEN_NAMES,
    GIVEN_SYLLABLES,
    ORDINARY_WORDS,
    PLACE_SYLLABLES,
    ROMANISED_FAMILY_NAMES,
    word_set,
)

_MONTHS = frozenset(MONTHS)

Span = tuple[int, int, str, str]

# Written to start with a literal (no \b) so the regex engine can skip ahead fast; the word
# boundary before the honorific is checked by hand.
PERSON_RE = re.compile(r"(?:M(?:rs|r|s|iss|x)|Dr|Prof)\.?\s+[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?")
_CN_HONORIFIC = "先生|女士|小姐|太太"
# What follows 女士 or 先生 when they are words for goods: 女士制服, 先生系列.
_CN_GOODS = (
    "制服|服|衣|鞋|用品|洗手间|洗手間|装|裝|系列|款|专用|專用|恤|裤|褲|裙|帽|袜|襪|包|手袋"
    "|内衣|內衣"
)
PERSON_CN_RE = re.compile(
    rf"[{CHINESE_FAMILY_NAMES}][\u4e00-\u9fff]{{0,2}}?(?:{_CN_HONORIFIC})(?!{_CN_GOODS})"
)
_NAME = r"[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+){1,2}"
CONTACT_NAME_RE = re.compile(rf"(?:\s+(?:person|to|in\s+charge))?\.?\s*[:：,-]?\s*({_NAME})")
CN_CONTACT_LABEL_RE = re.compile(
    r"(?:联系人|聯繫人|联络人|聯絡人|联络|聯絡|查询|查詢|负责人|負責人|经办人|經辦人)"
    r"\s*[:：]?\s*([\u4e00-\u9fff]{2,4}?)(?=[，,。；;、\s(（]|$|电话|電話|先生|女士|小姐)"
)
# Weaker labels ("请联系黄美玲", "致電陳大文"): the name after them must start with a family name.
CN_CALL_NAME_RE = re.compile(
    r"(?:联系|聯繫|致电|致電|询问|詢問|洽询|洽詢)\s*[:：]?\s*(?!方式|方法)"
    rf"([{CHINESE_FAMILY_NAMES}][\u4e00-\u9fff]{{1,2}}?)"
    r"(?=[，,。；;、\s(（]|$|电话|電話|先生|女士|小姐|查询|查詢)"
)
# Two capitalised words side by side (word boundaries checked by hand: a pattern that starts
# with a character class lets the regex engine skip ahead fast).
_NOT_NAMES = word_set("The This That These Those Each Every Contact Call")


def person_spans(view: View) -> Iterator[Span]:
    text = view.narrowed
    # Each check is guarded by the view's marks (one pass for all): most summaries name nobody.
    marks = view.marks
    if "honorific" in marks:
        for m in PERSON_RE.finditer(text):
            if m.start() and text[m.start() - 1].isalnum():
                continue
            if m.group() in BRAND_PERSONS or " ".join(m.group().split()[:2]) in BRAND_PERSONS:
                continue
            yield m.start(), m.end(), "person_name", "a name after an honorific"
    cjk = not text.isascii()
    if cjk and "cn_honorific" in marks:
        for m in PERSON_CN_RE.finditer(text):
            yield m.start(), m.end(), "person_name", "a family name with an honorific"
    lowered = view.lowered
    for label in CONTACT_LABELS if "contact" in view.hints else ():
        at = lowered.find(label)
        while at != -1:
            boundary = at == 0 or not lowered[at - 1].isalnum()
            if boundary and (m := CONTACT_NAME_RE.match(text, at + len(label))):
                words = m.group(1).split()
                # "call Centre Services" is a department, not a person.
                if words[0] not in _NOT_NAMES and not any(
                    w.lower() in ORDINARY_WORDS for w in words
                ):
                    yield m.start(1), m.end(1), "person_name", "a name after a contact label"
            at = lowered.find(label, at + 1)
    if cjk and "cn_label" in marks:
        for m in CN_CONTACT_LABEL_RE.finditer(text):
            yield m.start(1), m.end(1), "person_name", "a name after a contact label"
        for m in CN_CALL_NAME_RE.finditer(text):
            yield m.start(1), m.end(1), "person_name", "a family name after a contact word"
    hints = view.hints
    if "given_name" in hints or "family_name" in hints:
        yield from _names(text)


# A capitalised word, a hyphenated given name ("Jean-Pierre", "Tai-man") or a family name
# with a prefix ("O'Connor", "McDonald").
_WORD = r"(?:O['’]|Mc|Mac)?[A-Z][a-z]+(?:-[A-Za-z][a-z]+)?"
_NAME_RUN_RE = re.compile(rf"{_WORD}(?: {_WORD}){{1,2}}")
_SURNAME_PREFIX_RE = re.compile(r"(?:O['’]|Mc|Mac)[A-Z][a-z]+")
# Words after a given name that make it a place or a thing ("Victoria Park", "Mary Rose").
_NOT_SURNAMES = word_set(
    "Road Street Avenue Lane Drive Park Square Place Court Gardens Garden Hall House Tower "
    "Building Centre Center Bridge Station Harbour Hospital School College University Church "
    "Estate Terrace Close Way Hill Bay Island Beach Valley River Lake Museum Theatre Library "
    "Stadium Arena Market Mall Plaza Line Rose"
)


def _given(word: str) -> bool:
    first, _, second = word.partition("-")
    return first in GIVEN_NAMES and (not second or second[0].isupper())


def _surname(word: str, strict: bool) -> bool:
    if word in FAMILY_NAMES or _SURNAME_PREFIX_RE.fullmatch(word):
        return True
    if strict or word in _NOT_SURNAMES or word in _NOT_NAMES or "-" in word:
        return False
    return len(word) >= 3 and word.lower() not in ORDINARY_WORDS and word not in _MONTHS


def _syllables(words: list[str]) -> bool:
    """ "Ka Wai", "Wei Ming", "Tai-man": a romanised Chinese given name."""
    parts = [p.lower() for w in words for p in w.split("-")]
    return (
        len(parts) == 2
        and all(p in GIVEN_SYLLABLES for p in parts)
        and not any(p in PLACE_SYLLABLES for p in parts)
    )


def _names(text: str) -> Iterator[Span]:
    """People named without an honorific or a label: a known given name beside a family name
    ("Mary Wong", "Liam O'Connor", "Jean-Pierre Tremblay"), or a Chinese family name first
    with a romanised given name ("Lee Ka Wai", "Chan Tai-man")."""
    for m in _NAME_RUN_RE.finditer(text):
        start, end = m.span()
        if (start and text[start - 1].isalpha()) or (end < len(text) and text[end].isalpha()):
            continue
        words = m.group().split(" ")
        for i in range(len(words) - 1):
            first, second = words[i], words[i + 1]
            if _given(first) and _surname(second, strict=first in AMBIGUOUS_GIVEN):
                begin = start + sum(len(w) + 1 for w in words[:i])
                yield (
                    begin,
                    begin + len(first) + 1 + len(second),
                    "person_name",
                    ("a given name beside a family name"),
                )
                break
            if first in ROMANISED_FAMILY_NAMES and _syllables(words[i + 1 :]):
                begin = start + sum(len(w) + 1 for w in words[:i])
                yield begin, end, "person_name", "a Chinese family name and given name"
                break
