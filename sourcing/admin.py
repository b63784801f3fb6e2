from django.contrib import admin
from django.db import models

from .models import ComplianceItem, Engagement, EngagementStep, Lane, Market


@admin.register(Market)
class MarketAdmin(admin.ModelAdmin):
    list_display = ["code", "name_en", "name_zh", "name_zht", "position", "active"]
    list_editable = ["position", "active"]
    search_fields = ["code", "name_en"]


@admin.register(ComplianceItem)
class ComplianceItemAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "position", "active"]
    list_editable = ["position", "active"]
    filter_horizontal = ["markets"]
    prepopulated_fields = {"slug": ["name"]}
    search_fields = ["name", "slug", "description"]


@admin.register(Lane)
class LaneAdmin(admin.ModelAdmin):
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    list_display = ["name", "slug", "position", "active"]
    list_editable = ["position", "active"]
    list_filter = ["active", "markets"]
    filter_horizontal = ["markets", "compliance"]
    prepopulated_fields = {"slug": ["name"]}
    search_fields = ["name", "slug", "summary", "sources"]
    fieldsets = [
        (None, {"fields": ["name", "slug", "summary", "sources", "page_url"]}),
        ("Where and how", {"fields": ["markets", "compliance"]}),
        ("Listing", {"fields": ["position", "active"]}),
    ]


class EngagementStepInline(admin.TabularInline):
    model = EngagementStep
    extra = 0
    fields = ["position", "stage", "buyer_pays", "when", "buyer_gets"]


@admin.register(Engagement)
class EngagementAdmin(admin.ModelAdmin):
    """One engagement model: staff edit it, never add a second or delete it."""

    inlines = [EngagementStepInline]
    list_display = ["name", "deposit_percent", "reply_within_hours", "updated_at"]
    fieldsets = [
        (None, {"fields": ["name", "summary"]}),
        ("Reply promise", {"fields": ["reply_within_hours", "reply_note"]}),
        ("Deposit", {"fields": ["deposit_percent", "deposit_terms"]}),
    ]

    def has_add_permission(self, request):
        return not Engagement.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False
