"""Content negotiation, pure: the quality a client's Accept or Accept-Encoding header gives."""

from collections.abc import Sequence


def negotiated_quality(
    header: str, names: Sequence[str], wildcards: Sequence[str] = ()
) -> float | None:
    """The q-value of the most specific entry matching one of ``names`` (exact names beat
    ``wildcards``, earlier wildcards beat later ones); None when no entry matches.

    ``negotiated_quality("*/*, application/json;q=0", ["application/json"], ["*/*"])`` is 0.0.
    """
    ranks = {name.lower(): 0 for name in names}
    ranks.update({w.lower(): i + 1 for i, w in enumerate(wildcards)})
    best: tuple[int, float] | None = None
    for part in header.split(","):
        token, *params = (p.strip() for p in part.split(";"))
        rank = ranks.get(token.lower())
        if rank is None:
            continue
        quality = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if best is None or rank < best[0]:
            best = (rank, quality)
    return None if best is None else best[1]
