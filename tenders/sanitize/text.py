"""Text helpers of the gate: cleaning staff input, and the folded view secrets are matched in.

``clean_text`` is what drafting and the admin forms apply before a summary is stored.
``fold`` is the comparison view: case-folded, accents and full-width forms flattened, every run
of punctuation or whitespace turned into one space. Matching a buyer name or a reference in it
makes case, punctuation and spacing variants equal ("Land-Transport  AUTHORITY," finds
"Land Transport Authority"). ``fold_map`` builds the same string with a map back to the
original positions; it is slower and only runs once a needle has been seen.
"""

import html
import re
import unicodedata

_MARKS = re.compile(r"[\u0300-\u036f]")
_NONWORD = re.compile(r"[\W_]+")
_NONWORD_CHAR = re.compile(r"[\W_]")

# Characters that have no business in a public summary: C0/C1 controls (newline aside),
# soft hyphens, zero-width and bidirectional controls (they can hide or reorder text).
CONTROL_CHARS = (
    "\x00-\x09\x0b-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069"
    "\ufeff\ufff9-\ufffb"
)
CONTROL_RE = re.compile(f"[{CONTROL_CHARS}]+")

_COMMENT_RE = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>")
_SPACE_RE = re.compile(r"[\s\u00a0\u3000]+")


# Full-width ASCII forms and the ideographic space, each to its ASCII twin: one character for
# one, so positions in the narrowed text are positions in the original.
_NARROW = str.maketrans({chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)} | {"\u3000": " "})
# Chinese text always has full-width punctuation (，：（）), which the detectors read as it is;
# only full-width letters, digits, "＠" and "．" need narrowing.
_WIDE_FORMS_RE = re.compile("[\uff0e\uff10-\uff19\uff20-\uff3a\uff41-\uff5a]")


def narrow(text: str) -> str:
    """``text`` with full-width letters, digits and signs as ASCII (same length)."""
    if text.isascii() or not _WIDE_FORMS_RE.search(text):
        return text
    return text.translate(_NARROW)


def clean_text(text: str) -> str:
    """Plain, single-paragraph text: no HTML, no entities, no control characters.

    Tags are dropped (each leaves a space, so ``a<br>b`` stays two words), entities decoded,
    controls removed, whitespace collapsed, Unicode composed (NFC). Idempotent.
    """
    if not text:
        return ""
    text = _COMMENT_RE.sub(" ", text)
    text = _TAG_RE.sub(" ", text)
    text = html.unescape(text)
    # Decoding can reveal markup that was escaped in the source (``&lt;b&gt;``).
    text = _TAG_RE.sub(" ", _COMMENT_RE.sub(" ", text))
    text = text.replace("\t", " ").replace("\r", " ").replace("\n", " ")
    text = CONTROL_RE.sub("", text)
    text = unicodedata.normalize("NFC", text)
    return _SPACE_RE.sub(" ", text).strip()


# Characters compatibility decomposition changes: accented Latin, letter-like symbols, number
# forms, CJK compatibility forms, ligatures, full-width letters and digits. Chinese text
# without them (most of it) skips the decomposition.
_DECOMPOSABLE_RE = re.compile(
    "[\u00a0-\u02af\u1e00-\u1eff\u2070-\u209f\u2100-\u24ff\u2e80-\u2fdf\u3300-\u33ff"
    "\uac00-\ud7af\uf900-\ufaff\ufb00-\ufb06\uff10-\uff19\uff21-\uff3a\uff41-\uff5a"
    "\uff66-\uffef]"
)


# Variant characters Hong Kong and Macao write either way (電台/電臺, 衞生/衛生, 綫/線): one
# form in the folded view, so a name in the directory in one form is found in the other.
_CJK_VARIANT_CHARS = "臺衞綫峯着麪"
_CJK_VARIANTS = str.maketrans(_CJK_VARIANT_CHARS, "台衛線峰著麵")
_CJK_VARIANT_RE = re.compile(f"[{_CJK_VARIANT_CHARS}]")


def flatten(text: str) -> str:
    """``text`` as ``fold`` flattens it before punctuation becomes spaces: case-folded, accents
    and compatibility forms flattened, variant characters as one. ``fold`` only turns runs of
    punctuation and space into one space after it (ASCII text takes a faster path to the same
    result), so every word of ``fold(text)`` is a substring of ``flatten(text)``."""
    text = text.casefold()
    if not text.isascii():
        if _DECOMPOSABLE_RE.search(text):
            text = _MARKS.sub("", unicodedata.normalize("NFKD", text))
        if _CJK_VARIANT_RE.search(text):
            text = text.translate(_CJK_VARIANTS)
    return text


# ASCII text folds with one byte translation (upper case to lower, every character but a letter
# or digit to a space) and a split: several times faster than the regular expression.
_ASCII_FOLD = bytes(
    (c + 32 if 65 <= c <= 90 else c) if chr(c).isalnum() and c < 128 else 32 for c in range(256)
)


def fold(text: str) -> str:
    """The comparison view of ``text``, padded with a space at each end."""
    if not text.isascii():
        return " " + _NONWORD.sub(" ", flatten(text)) + " "
    spaced = text.encode("ascii").translate(_ASCII_FOLD)
    joined = b" ".join(spaced.split()).decode("ascii")
    if not joined:
        return "   " if spaced else "  "
    head = " " if spaced[0] == 32 else ""
    tail = " " if spaced[-1] == 32 else ""
    return f" {head}{joined}{tail} "


def fold_map(text: str) -> tuple[str, list[int]]:
    """``fold(text)`` built character by character, with each folded position's source index.

    Equal to ``fold(text)`` (a test checks it on every corpus); only called on a hit.
    """
    out = [" "]
    where = [0]
    in_run = False
    for index, char in enumerate(text):
        for piece in flatten(char):
            if _NONWORD_CHAR.match(piece):
                if in_run:
                    continue
                out.append(" ")
                in_run = True
            else:
                out.append(piece)
                in_run = False
            where.append(index)
    out.append(" ")
    where.append(len(text))
    return "".join(out), where


def excerpt(text: str, start: int, end: int, margin: int = 20) -> str:
    """The finding with some context, for staff."""
    left = max(0, start - margin)
    right = min(len(text), end + margin)
    return ("…" if left else "") + text[left:right] + ("…" if right < len(text) else "")


MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

# Month names of the markets' other languages (Canada and the EU: French; Macao: Portuguese),
# in lower case as they are written ("17 décembre 2026", "17 de Dezembro de 2026").
FOREIGN_MONTHS = (
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
    "janeiro",
    "fevereiro",
    "março",
    "abril",
    "maio",
    "junho",
    "julho",
    "agosto",
    "setembro",
    "outubro",
    "novembro",
    "dezembro",
)
