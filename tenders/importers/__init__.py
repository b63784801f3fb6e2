"""Importing public notices: pure readers, one module per format, and one import service.

- ``notice``: the plain values readers produce (``Piece``, ``Notice``, ``Skip``, ``Failure``)
  and the parsers they share (free-text deadlines, amounts, languages);
- ``ocds``, ``eforms``, ``gld``, ``csvfile``, ``canadabuys``, ``ted``: one reader per format,
  each ``pieces(location)`` (stream a file, a folder or a URL) and ``build(notice_id,
  payloads)`` (a procedure's current state); no database;
- ``harvest``: what a configured source asks for (a window since its checkpoint, TED's
  search then each notice, a file only when it changed);
- ``checkpoints``: where a run can resume and where the next one starts;
- ``presets``: the ready-made sources of the publishers' public endpoints;
- ``sources``: files, folders, repaired UTF-8, grouping pieces by procedure in bounded memory;
- ``http``: a session spacing its requests and naming a contact, retries honouring
  ``Retry-After``, conditional requests, HTML rate-limit pages;
- ``classify``: CPV, UNSPSC and GSIN codes, keywords and procurement category to our categories;
- ``service``: ``import_notices`` and ``import_from_source``, the one way records are imported.
"""
