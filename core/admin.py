"""The sign-in log, read-only, for staff with its view permission."""

from django.contrib import admin

from .models import SignInEvent


@admin.register(SignInEvent)
class SignInEventAdmin(admin.ModelAdmin):
    list_display = ("at", "kind", "username", "user", "address", "detail")
    list_filter = ("kind", "at")
    search_fields = ("username", "address", "detail")
    date_hierarchy = "at"
    readonly_fields = [f.name for f in SignInEvent._meta.fields]
    list_select_related = ("user",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
