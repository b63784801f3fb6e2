"""The staff admin of the feed, one module per area (each registers its own models).

Thin by design: actions and views validate what staff typed and call the services in
``tenders.curation`` (which call the publication services), then report. Findings are shown
here and nowhere public.
"""

from . import (  # noqa: F401  (registration)
    directory,
    imports,
    issues,
    jobs,
    records,
    subscriptions,
    vocabulary,
)
