"""People's paths. ``people`` goes under the language prefixes (``i18n_patterns`` in the root
URLconf, the only place Django allows it); ``unprefixed`` holds the feeds and the redirects of
``/`` and of the paths published before the pages had languages."""

from django.urls import path

from . import feeds, intake, subscribe, views

people = [
    path("", views.home, name="home"),
    path("tenders/", views.tender_list, name="tender-list"),
    path("tenders/<str:at_id>/", views.tender_detail, name="tender"),
    path("rfq/", intake.form_view(intake.RFQ), name="rfq"),
    path("rfq/sent/", intake.sent_view(intake.RFQ), name="rfq-sent"),
    path("lanes/<slug:lane_id>/", views.lane, name="lane"),
    path("access/", views.access, name="access"),
    path("access/request/", intake.form_view(intake.ACCESS), name="access-request"),
    path("access/request/sent/", intake.sent_view(intake.ACCESS), name="access-sent"),
    path("subscriptions/", subscribe.subscribe, name="subscribe"),
    path("subscriptions/sent/", subscribe.sent, name="subscription-sent"),
    path("subscriptions/confirm/<str:token>/", subscribe.confirm, name="subscription-confirm"),
    path(
        "subscriptions/unsubscribe/<str:token>/",
        subscribe.unsubscribe,
        name="subscription-unsubscribe",
    ),
    path("subscriptions/manage/<str:token>/", subscribe.manage, name="subscription-manage"),
]

unprefixed = [
    path("", views.root, name="people-root"),
    path("lanes/<slug:lane_id>/", views.old_lane, name="old-lane"),
    path("access/", views.old_access, name="old-access"),
    path("feeds/tenders.atom", feeds.tenders_feed, name="feed-tenders"),
    path("feeds/new.atom", feeds.new_feed, name="feed-new"),
]
