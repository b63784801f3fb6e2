"""Simplified <-> Traditional Chinese conversion: the one helper every part of the feed uses.

Simplified Chinese uses mainland wording (合同, 公共机构, 信息技术); Traditional uses Hong Kong
wording (合約, 公營機構, 資訊科技). ``to_traditional`` first replaces the mainland phrases of our
reviewed table (``vocabulary/data/hk_phrases.tsv``) with their Hong Kong forms, then converts with
OpenCC's phrase-level ``s2hk``: never a bare character conversion. ``to_simplified`` (``hk2s``)
lets search and the gate read Traditional text as Simplified. Converters are built once per
process; results are cached because the same phrases recur across thousands of records.
"""

import csv
import re
from functools import cache, lru_cache
from pathlib import Path

import opencc

HK_PHRASES = Path(__file__).with_name("vocabulary") / "data" / "hk_phrases.tsv"


@lru_cache(maxsize=4)
def _converter(config: str) -> opencc.OpenCC:
    return opencc.OpenCC(config)


def _convert(config: str, text: str) -> str:
    """OpenCC's conversion of ``text``, around NUL characters (``s2hk`` and ``hk2s`` stop at
    the first one)."""
    convert = _converter(config).convert
    return "\0".join(convert(part) for part in text.split("\0"))


@cache
def hk_phrases() -> dict[str, str]:
    """Mainland phrase -> the same phrase in Hong Kong wording (both in Simplified script)."""
    with HK_PHRASES.open(encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return {row["mainland"]: row["hong_kong"] for row in rows}


@cache
def _hk_pattern() -> re.Pattern:
    phrases = sorted(hk_phrases(), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, phrases)))


def hong_kong_wording(text: str) -> str:
    """Mainland phrases replaced by Hong Kong ones, still in Simplified script."""
    table = hk_phrases()
    return _hk_pattern().sub(lambda m: table[m.group(0)], text)


@lru_cache(maxsize=65_536)
def to_traditional(text: str) -> str:
    """Simplified (mainland wording) -> Traditional (Hong Kong wording); other scripts pass
    through."""
    return _convert("s2hk", hong_kong_wording(text))


@lru_cache(maxsize=65_536)
def to_simplified(text: str) -> str:
    """Traditional (Hong Kong, Taiwan or standard forms: 衞 and 衛 alike) -> Simplified Chinese
    (OpenCC ``hk2s``); other scripts pass through."""
    return _convert("hk2s", text)
