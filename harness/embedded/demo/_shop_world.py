"""Fixed facts of the demo business database: names, catalogue prices and the ops tables.

Kept apart from :mod:`harness.embedded.demo.generate_shop` so that the generator reads as logic. The ops
rows are the incident's paper trail: CHG-4821 (checkout-api HikariCP pool 40 → 4 by
``deploy-bot`` at 2026-11-02 14:04:12 UTC) among harmless changes, and the 13:30:05 checkout-api
v2.14.1 deployment (a red herring).
"""

from __future__ import annotations

from datetime import datetime

__all__ = [
    "CONFIG_CHANGES",
    "DEPLOYMENTS",
    "DOMAINS",
    "FEATURE_FLAGS",
    "FIRST_NAMES",
    "LAST_NAMES",
    "PRICES_CENTS",
    "REGIONS",
    "SERVICES",
    "table_rows",
]

# Whitespace-separated word lists read better than one-name-per-line literals.
FIRST_NAMES = tuple(
    """
Olivia Liam Emma Noah Amelia Oliver Sophia Elijah Mia Lucas Harper Mateo Evelyn Levi Aria
Ethan Chloe Kai Lena Jonas Sofia Finn Mila Leon Hannah Yuki Haruto Wei Mei Arjun Priya
Omar Fatima Lars Ingrid Pierre Camille Diego Lucia Tomasz Zofia Aisha Kwame Ana Joao Chen
Min-jun Seo-yeon Ivan Olga Emre Elif Noor Sven Freya
""".split()  # noqa: SIM905
)
LAST_NAMES = tuple(
    """
Smith Johnson Garcia Muller Schmidt Rossi Bianchi Dubois Martin Kowalski Nowak Tanaka
Sato Kim Park Chen Wang Patel Sharma Khan Silva Santos Novak Horvat Jensen Hansen Nielsen
Larsen Costa Ferreira Yilmaz Demir Ivanova Petrov Okafor Mensah Brown Wilson Taylor
Anderson Thomas Moore O'Brien Murphy Walsh Fischer Weber Becker Hoffmann Lopez
""".split()  # noqa: SIM905
)
DOMAINS = ["example.com", "mail.example.net", "example.org", "shop-mail.example"]
REGIONS = ["eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-southeast-1"]
PRICES_CENTS = [499, 999, 1299, 1999, 2499, 3499, 4999, 7999, 12999]


# Fixed ops rows as "|"-separated text; table_rows types the id-like columns and the timestamps.
SERVICES = """
1|api-gateway|platform|1
2|checkout-api|checkout|1
3|payment-service|payments|1
4|inventory-service|fulfilment|2
5|notification-service|platform|3
6|search-service|discovery|2
"""

DEPLOYMENTS = """
1|search-service|4.9.0|ci-pipeline|2026-10-27 09:12:44|SUCCEEDED
2|inventory-service|1.21.3|ci-pipeline|2026-10-27 15:40:02|SUCCEEDED
3|payment-service|3.8.1|ci-pipeline|2026-10-28 10:05:31|SUCCEEDED
4|api-gateway|5.3.0|ci-pipeline|2026-10-28 16:22:09|ROLLED_BACK
5|api-gateway|5.3.1|ci-pipeline|2026-10-29 11:03:57|SUCCEEDED
6|checkout-api|2.14.0|ci-pipeline|2026-10-29 14:18:20|SUCCEEDED
7|notification-service|0.17.2|ci-pipeline|2026-10-30 08:47:15|SUCCEEDED
8|inventory-service|1.22.0|ci-pipeline|2026-10-31 13:26:41|SUCCEEDED
9|payment-service|3.8.2|ci-pipeline|2026-11-01 10:58:03|SUCCEEDED
10|search-service|4.9.1|ci-pipeline|2026-11-02 09:41:26|SUCCEEDED
11|checkout-api|2.14.1|ci-pipeline|2026-11-02 13:30:05|SUCCEEDED
"""

CONFIG_CHANGES = """
1|payment-service|payment.retry.max-attempts|3|5|m.chen|2026-10-26 10:14:02|CHG-4702
2|api-gateway|ratelimit.checkout.requests-per-second|800|1000|a.kowalski|2026-10-27 11:30:45|CHG-4715
3|inventory-service|cache.sku.ttl-seconds|60|120|deploy-bot|2026-10-27 17:02:11|CHG-4721
4|checkout-api|logging.level.com.shop.checkout|INFO|DEBUG|j.okafor|2026-10-28 09:55:38|CHG-4733
5|checkout-api|logging.level.com.shop.checkout|DEBUG|INFO|j.okafor|2026-10-28 15:07:19|CHG-4740
6|search-service|search.results.page-size|24|36|s.larsen|2026-10-29 10:21:06|CHG-4752
7|payment-service|payment.provider.adyen.timeout-ms|4000|3000|m.chen|2026-10-30 13:44:50|CHG-4768
8|api-gateway|upstream.checkout-api.timeout-ms|10000|15000|a.kowalski|2026-10-31 09:12:33|CHG-4779
9|notification-service|email.batch-size|50|100|deploy-bot|2026-10-31 16:48:27|CHG-4784
10|inventory-service|spring.datasource.hikari.maximum-pool-size|20|24|deploy-bot|2026-11-01 11:09:58|CHG-4797
11|checkout-api|checkout.recommendations.timeout-ms|300|250|p.sharma|2026-11-01 15:33:14|CHG-4803
12|payment-service|gunicorn.workers|8|10|deploy-bot|2026-11-02 08:02:40|CHG-4809
13|search-service|feature.synonyms.enabled|false|true|s.larsen|2026-11-02 10:37:22|CHG-4814
14|api-gateway|cors.allowed-origins|https://shop.example.com|https://shop.example.com,https://m.shop.example.com|a.kowalski|2026-11-02 12:51:09|CHG-4818
15|checkout-api|spring.datasource.hikari.maximum-pool-size|40|4|deploy-bot|2026-11-02 14:04:12|CHG-4821
16|notification-service|sms.provider|twilio|messagebird|deploy-bot|2026-11-02 14:22:47|CHG-4822
"""

FEATURE_FLAGS = """
1|checkout-api|checkout.one-click|1|2026-10-14 09:00:00
2|checkout-api|checkout.recommendations|1|2026-11-01 15:33:14
3|checkout-api|checkout.async-order-events|0|2026-10-20 12:10:00
4|payment-service|payments.adyen-3ds2|1|2026-10-22 10:00:00
5|payment-service|payments.paypal-vault|0|2026-09-30 16:45:00
6|inventory-service|inventory.reservation-v2|1|2026-10-31 13:30:00
7|api-gateway|gateway.http3|0|2026-10-05 08:00:00
8|api-gateway|gateway.request-hedging|0|2026-10-28 16:30:00
9|search-service|search.synonyms|1|2026-11-02 10:37:22
10|notification-service|notify.sms-fallback|1|2026-11-02 14:22:47
"""


def table_rows(text: str, int_columns: tuple[int, ...] = (0,)) -> list[tuple[object, ...]]:
    """Rows of a "|"-table; the given columns become int, timestamps become datetime."""

    def cell(index: int, value: str) -> object:
        if index in int_columns:
            return int(value)
        try:
            return datetime.strptime(value, "%Y-%m-%d %H:%M:%S")
        except ValueError:
            return value

    return [
        tuple(cell(i, v) for i, v in enumerate(line.split("|")))
        for line in text.strip().splitlines()
    ]
