"""The category vocabulary and starting currency rates (staff edit both in the admin).

Traditional Chinese names are the OpenCC ``s2t`` conversion of the Simplified names, the same
converter the summary drafting uses, so the two never disagree (a test checks it).
"""

from decimal import Decimal

from django.db import migrations

CATEGORIES = [
    ("construction-works", "Construction works", "建筑工程", "建築工程"),
    (
        "civil-engineering",
        "Civil engineering and infrastructure",
        "土木工程及基础设施",
        "土木工程及基礎設施",
    ),
    ("building-maintenance", "Building maintenance and repair", "楼宇维修及保养", "樓宇維修及保養"),
    (
        "architecture-engineering-design",
        "Architecture and engineering design",
        "建筑及工程设计",
        "建築及工程設計",
    ),
    ("facilities-management", "Facilities management", "设施管理", "設施管理"),
    ("cleaning-hygiene", "Cleaning and hygiene services", "清洁及卫生服务", "清潔及衛生服務"),
    ("security-services", "Security services", "保安服务", "保安服務"),
    ("it-hardware", "IT hardware and equipment", "信息技术硬件及设备", "信息技術硬件及設備"),
    (
        "software-it-services",
        "Software and IT services",
        "软件及信息技术服务",
        "軟件及信息技術服務",
    ),
    ("telecommunications", "Telecommunications", "电信服务", "電信服務"),
    ("medical-supplies", "Medical supplies and equipment", "医疗用品及设备", "醫療用品及設備"),
    ("pharmaceuticals", "Pharmaceuticals", "药品", "藥品"),
    (
        "laboratory-scientific",
        "Laboratory and scientific equipment",
        "实验室及科学仪器",
        "實驗室及科學儀器",
    ),
    (
        "consulting-professional",
        "Consulting and professional services",
        "咨询及专业服务",
        "諮詢及專業服務",
    ),
    ("financial-insurance", "Financial and insurance services", "金融及保险服务", "金融及保險服務"),
    ("transport-logistics", "Transport and logistics", "运输及物流", "運輸及物流"),
    ("vehicles-fleet", "Vehicles and fleet", "车辆及车队", "車輛及車隊"),
    ("energy-utilities", "Energy and utilities", "能源及公用事业", "能源及公用事業"),
    (
        "environmental-waste",
        "Environmental and waste services",
        "环境及废物处理服务",
        "環境及廢物處理服務",
    ),
    ("education-training", "Education and training", "教育及培训", "教育及培訓"),
    (
        "office-supplies-furniture",
        "Office supplies and furniture",
        "办公用品及家具",
        "辦公用品及傢俱",
    ),
    ("food-catering", "Food and catering", "食品及餐饮服务", "食品及餐飲服務"),
    (
        "marketing-communications",
        "Marketing and communications",
        "市场推广及传讯",
        "市場推廣及傳訊",
    ),
]

# US dollars per unit, a starting point only: staff keep them current under Currency rates.
RATES = {
    "USD": "1",
    "HKD": "0.1285",
    "MOP": "0.1248",
    "SGD": "0.7700",
    "GBP": "1.3100",
    "EUR": "1.1600",
    "AUD": "0.6550",
    "CAD": "0.7150",
}


def seed(apps, schema_editor):
    Category = apps.get_model("tenders", "Category")
    CurrencyRate = apps.get_model("tenders", "CurrencyRate")
    for position, (slug, en, zh, zht) in enumerate(CATEGORIES):
        Category.objects.update_or_create(
            slug=slug,
            defaults={"name_en": en, "name_zh": zh, "name_zht": zht, "position": position},
        )
    for code, rate in RATES.items():
        CurrencyRate.objects.get_or_create(currency=code, defaults={"usd_per_unit": Decimal(rate)})


class Migration(migrations.Migration):
    dependencies = [("tenders", "0002_search_index")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
