"""Simplified <-> Traditional Chinese conversion: the one helper every part of the feed uses.

OpenCC's ``s2t`` makes Traditional summaries and category names from the Simplified ones (so
they never disagree); ``t2s`` lets the sanitization gate find a buyer name given in
Traditional inside a Simplified summary. Converters are built once per process; results are
cached because the same buyer names and phrases recur across thousands of records.
"""

from functools import lru_cache

import opencc


@lru_cache(maxsize=2)
def _converter(config: str) -> opencc.OpenCC:
    return opencc.OpenCC(config)


@lru_cache(maxsize=65_536)
def to_traditional(text: str) -> str:
    """Simplified -> Traditional Chinese (OpenCC ``s2t``); other scripts pass through."""
    return _converter("s2t").convert(text)


@lru_cache(maxsize=65_536)
def to_simplified(text: str) -> str:
    """Traditional -> Simplified Chinese (OpenCC ``t2s``); other scripts pass through."""
    return _converter("t2s").convert(text)
