"""The read side: what the public surfaces ask of the current snapshot.

Everything here reads; nothing here imports ``tenders.publication`` (tests/test_import_graph.py).
"""
