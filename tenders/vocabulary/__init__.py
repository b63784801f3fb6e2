"""The public vocabulary: what a public summary may say, and how a notice's summary is built.

- ``cpv``: the CPV 2008 concepts with our English, Simplified and Traditional labels;
- ``classify``: a notice's concepts from its codes and title (only ever CPV codes), and the
  concept search of the admin;
- ``summaries``: the three summaries from concepts and enumerated facts, nothing else;
- ``coverage``: the check that every word of a public summary is in the vocabulary.

Pure: no Django, so publication's worker processes use it as they use the gate.
"""
