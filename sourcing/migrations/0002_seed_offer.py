"""A starting offer for the capabilities document; staff keep it current in the admin."""

from django.db import migrations

MARKETS = [
    (
        "HK",
        "Hong Kong",
        "香港",
        "香港",
        "Government and hospital tenders; local delivery and after-sales partners.",
    ),
    (
        "MO",
        "Macao",
        "澳门",
        "澳門",
        "Public works and health tenders; delivery through Hong Kong or Zhuhai.",
    ),
    (
        "SG",
        "Singapore",
        "新加坡",
        "新加坡",
        "GeBIZ tenders; sea freight and local importer of record.",
    ),
    (
        "GB",
        "United Kingdom",
        "英国",
        "英國",
        "NHS and council frameworks; UKCA documentation and UK responsible person.",
    ),
    (
        "EU",
        "European Union",
        "欧盟",
        "歐盟",
        "TED tenders; CE documentation and an EU importer of record.",
    ),
    (
        "AU",
        "Australia",
        "澳大利亚",
        "澳大利亞",
        "State and federal tenders; RCM and TGA paperwork prepared with the buyer.",
    ),
    (
        "CA",
        "Canada",
        "加拿大",
        "加拿大",
        "Federal and municipal tenders; Health Canada and ISED documentation.",
    ),
]

COMPLIANCE = [
    (
        "iso-9001",
        "ISO 9001 quality management",
        "Factories hold a current ISO 9001 certificate, checked against the issuing body's register.",
        [],
    ),
    (
        "iso-13485",
        "ISO 13485 medical devices quality management",
        "Medical factories hold a current ISO 13485 certificate, checked against the register.",
        [],
    ),
    (
        "ce-marking",
        "CE marking",
        "Declaration of conformity and technical file reviewed for the relevant EU directives and regulations.",
        ["EU"],
    ),
    (
        "ukca",
        "UKCA marking",
        "UK declaration of conformity and UK responsible person arranged.",
        ["GB"],
    ),
    (
        "rcm",
        "RCM (electrical safety and EMC)",
        "Test reports and supplier registration for the Regulatory Compliance Mark.",
        ["AU"],
    ),
    (
        "tga-artg",
        "TGA ARTG inclusion",
        "Medical devices supplied only with an ARTG entry held by the sponsor.",
        ["AU"],
    ),
    (
        "health-canada-mdl",
        "Health Canada medical device licence",
        "Class II and higher devices supplied only with a valid licence.",
        ["CA"],
    ),
    (
        "rohs-reach",
        "RoHS and REACH",
        "Restricted-substance declarations and test reports for electrical and electronic goods.",
        ["EU", "GB"],
    ),
    (
        "fsc-coc",
        "FSC chain of custody",
        "Timber products traced under an FSC chain-of-custody certificate.",
        [],
    ),
    (
        "iec-61215-61730",
        "IEC 61215 and IEC 61730",
        "Photovoltaic module design qualification and safety certificates.",
        [],
    ),
    (
        "labour-due-diligence",
        "Forced-labour due diligence",
        "Supply-chain mapping and audit evidence for raw materials, as buyers' modern-slavery rules require.",
        ["GB", "AU", "CA", "EU"],
    ),
]

LANES = [
    (
        "medical-consumables",
        "Medical consumables and PPE",
        "Gloves, gowns, masks, dressings and single-use devices for hospitals and clinics.",
        "ISO 13485-certified manufacturers in Guangdong, Jiangsu and Zhejiang, audited before first order.",
        ["HK", "MO", "SG", "GB", "EU", "AU", "CA"],
        [
            "iso-13485",
            "ce-marking",
            "ukca",
            "tga-artg",
            "health-canada-mdl",
            "labour-due-diligence",
        ],
    ),
    (
        "it-network-hardware",
        "IT and network hardware",
        "Switches, access points, rugged tablets, displays and cabling for public IT projects.",
        "Authorised distributors and OEM factories in Shenzhen and Dongguan; branded goods only through authorised channels.",
        ["HK", "MO", "SG", "GB", "EU", "AU"],
        ["iso-9001", "ce-marking", "ukca", "rcm", "rohs-reach"],
    ),
    (
        "office-school-furniture",
        "Office and school furniture",
        "Desks, seating, storage and library furniture for offices, schools and fit-outs.",
        "Furniture makers in Foshan and Zhejiang with their own test labs; sample approval before mass production.",
        ["HK", "MO", "SG", "GB", "AU"],
        ["iso-9001", "fsc-coc", "ukca", "labour-due-diligence"],
    ),
    (
        "solar-energy-equipment",
        "Solar PV and energy-efficiency equipment",
        "PV modules, inverters, LED street lighting and controls for public energy projects.",
        "Tier-1 module makers and lighting factories in Jiangsu, Anhui and Guangdong, with traceable polysilicon supply.",
        ["HK", "SG", "GB", "EU", "AU", "CA"],
        ["iec-61215-61730", "ce-marking", "ukca", "rcm", "labour-due-diligence"],
    ),
]

ENGAGEMENT = {
    "name": "Deposit-first",
    "summary": (
        "Quotes are free. Production starts only when the buyer has paid a deposit, and the "
        "balance is due once goods pass inspection, before shipment. We reply to every "
        "request for quote within hours, not days."
    ),
    "reply_within_hours": 4,
    "reply_note": "The first reply confirms the lane, asks what the quote still needs, and gives an indicative price where the specification allows.",
    "deposit_percent": 30,
    "deposit_terms": (
        "The deposit is credited in full to the order. It is refunded in full if we cannot "
        "confirm production within the agreed lead time, or if the pre-production sample is "
        "rejected twice."
    ),
}
STEPS = [
    (
        "Request for quote",
        "Nothing",
        "-",
        "A first reply (see the reply promise), then a written quote with lead time, incoterms and compliance documents listed.",
    ),
    (
        "Order",
        "30% deposit",
        "On signing the order",
        "Production slot booked, pre-production sample or drawings for approval, a weekly progress note.",
    ),
    (
        "Inspection",
        "Nothing",
        "-",
        "Third-party pre-shipment inspection report with photos, against the approved sample.",
    ),
    (
        "Shipment",
        "70% balance",
        "After the inspection passes, before shipment",
        "Goods shipped with commercial invoice, packing list, certificates and the compliance file.",
    ),
]


def seed(apps, schema_editor):
    Market = apps.get_model("sourcing", "Market")
    ComplianceItem = apps.get_model("sourcing", "ComplianceItem")
    Lane = apps.get_model("sourcing", "Lane")
    Engagement = apps.get_model("sourcing", "Engagement")
    EngagementStep = apps.get_model("sourcing", "EngagementStep")
    markets = {}
    for position, (code, en, zh, zht, notes) in enumerate(MARKETS):
        markets[code] = Market.objects.create(
            code=code, name_en=en, name_zh=zh, name_zht=zht, notes=notes, position=position
        )
    items = {}
    for position, (slug, name, description, where) in enumerate(COMPLIANCE):
        item = ComplianceItem.objects.create(
            slug=slug, name=name, description=description, position=position
        )
        item.markets.set([markets[c] for c in where])
        items[slug] = item
    for position, (slug, name, summary, sources, where, checks) in enumerate(LANES):
        lane = Lane.objects.create(
            slug=slug, name=name, summary=summary, sources=sources, position=position
        )
        lane.markets.set([markets[c] for c in where])
        lane.compliance.set([items[c] for c in checks])
    engagement = Engagement.objects.create(**ENGAGEMENT)
    for position, (stage, pays, when, gets) in enumerate(STEPS):
        EngagementStep.objects.create(
            engagement=engagement,
            position=position,
            stage=stage,
            buyer_pays=pays,
            when=when,
            buyer_gets=gets,
        )


def unseed(apps, schema_editor):
    for name in ("EngagementStep", "Engagement", "Lane", "ComplianceItem", "Market"):
        apps.get_model("sourcing", name).objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("sourcing", "0001_initial")]
    operations = [migrations.RunPython(seed, unseed)]
