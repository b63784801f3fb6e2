"""Staff admin of the public vocabulary (categories) and the USD rates behind value bands."""

from django import forms
from django.contrib import admin

from ..chinese import to_traditional
from ..models import Category, CurrencyRate


class CategoryForm(forms.ModelForm):
    class Meta:
        model = Category
        fields = ("slug", "name_en", "name_zh", "name_zht", "position")
        help_texts = {
            "slug": "Public identifier used in filters and links; cannot change once created.",
            "name_en": "Public English name, shown on every row of this category.",
            "name_zh": "Public Simplified Chinese name.",
            "name_zht": "Public Traditional Chinese name. Leave empty to use the OpenCC "
            "conversion of the Simplified name (the feed's convention).",
            "position": "Order in facet lists (lowest first).",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["name_zht"].required = False

    def clean(self):
        data = super().clean()
        if not data.get("name_zht") and data.get("name_zh"):
            data["name_zht"] = to_traditional(data["name_zh"])
        return data


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    form = CategoryForm
    list_display = ("slug", "name_en", "name_zh", "name_zht", "position")
    list_editable = ("position",)
    search_fields = ("slug", "name_en", "name_zh", "name_zht")
    prepopulated_fields = {"slug": ("name_en",)}

    def get_readonly_fields(self, request, obj=None):
        return ("slug",) if obj else ()

    def get_prepopulated_fields(self, request, obj=None):
        return {} if obj else self.prepopulated_fields


class CurrencyRateForm(forms.ModelForm):
    class Meta:
        model = CurrencyRate
        fields = ("currency", "usd_per_unit")

    def clean_currency(self):
        code = (self.cleaned_data.get("currency") or "").strip().upper()
        if len(code) != 3 or not code.isalpha():
            raise forms.ValidationError("Use a three-letter ISO 4217 code, e.g. HKD.")
        return code


@admin.register(CurrencyRate)
class CurrencyRateAdmin(admin.ModelAdmin):
    form = CurrencyRateForm
    list_display = ("currency", "usd_per_unit", "updated_at")
    search_fields = ("currency",)
    readonly_fields = ("updated_at",)
