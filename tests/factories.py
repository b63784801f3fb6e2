from datetime import timedelta
from decimal import Decimal

import factory

from tenders.models import Category, SourceTender
from tests.conftest import T0


def category(slug: str = "it-hardware") -> Category:
    return Category.objects.get(slug=slug)


class SourceTenderFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = SourceTender

    listing_id = factory.Sequence(lambda n: f"AT-TEST-{n:010d}")
    market = "HK"
    category = factory.LazyFunction(category)
    buyer_name = "Harbour District Works Office"
    reference = factory.Sequence(lambda n: f"HDWO/T/2026/{n:04d}")
    source_url = "https://procurement.example.gov.hk/notice/1234"
    deadline = T0 + timedelta(days=20)
    amount = Decimal("1000000.00")
    currency = "HKD"
    title = "Supply of network switches"
    description = "Raw notice text. Contact: buyer@example.gov.hk"
    summary_en = "Supply of network switches and wireless access points for a public body."
    summary_zh = "公营机构采购网络交换器及无线接入点。"
    summary_zht = "公營機構採購網絡交換器及無線接入點。"
    lead_ok = True
    status = SourceTender.Status.APPROVED
