"""A stock Django REST framework service over the snapshot table: the baseline that
``bench/http_load.py`` measures the product against. Benchmark code only, never served by the
product: gunicorn loads it with ``DJANGO_SETTINGS_MODULE=bench.stock_drf.settings``."""
