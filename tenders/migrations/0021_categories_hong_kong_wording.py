"""Traditional category names in Hong Kong wording (資訊科技, 衞生), as ``chinese.to_traditional``
makes them; a name staff changed since the seed is left alone."""

from django.db import migrations

# slug: (seeded name, Hong Kong wording)
RENAMED = {
    "cleaning-hygiene": ("清潔及衛生服務", "清潔及衞生服務"),
    "it-hardware": ("信息技術硬件及設備", "資訊科技硬件及設備"),
    "software-it-services": ("軟件及信息技術服務", "軟件及資訊科技服務"),
}


def forward(apps, schema_editor):
    Category = apps.get_model("tenders", "Category")
    for slug, (seeded, hong_kong) in RENAMED.items():
        Category.objects.filter(slug=slug, name_zht=seeded).update(name_zht=hong_kong)


def backward(apps, schema_editor):
    Category = apps.get_model("tenders", "Category")
    for slug, (seeded, hong_kong) in RENAMED.items():
        Category.objects.filter(slug=slug, name_zht=hong_kong).update(name_zht=seeded)


class Migration(migrations.Migration):
    dependencies = [("tenders", "0020_concepts")]
    operations = [migrations.RunPython(forward, backward)]
