"""Importing public notices: pure readers, one module per format, and one import service.

- ``notice``: the plain values readers produce (``Piece``, ``Notice``, ``Skip``, ``Failure``)
  and the parsers they share (free-text deadlines, amounts, languages);
- ``ocds``, ``eforms``, ``gld``, ``csvfile``: one reader per format, each ``pieces(location)``
  (stream a file, a folder or a URL) and ``build(notice_id, payloads)`` (a procedure's current
  state); no database;
- ``sources``: files, folders, repaired UTF-8, grouping pieces by procedure in bounded memory;
- ``http``: timeouts, retries honouring ``Retry-After``, HTML rate-limit pages;
- ``classify``: CPV, UNSPSC and GSIN codes, keywords and procurement category to our categories;
- ``service``: ``import_notices`` and ``import_from_source``, the one way records are imported.
"""
