#!/usr/bin/env python3
"""Writes market.sql: the synthetic market data set of market-analyst.

Deterministic (a fixed seed, the standard library only): running it again
gives the same file byte for byte. Every figure is invented; the real
companies' names and tickers are there so that prompts read naturally, not
because any number is theirs.

    python3 data/generate.py > data/market.sql

The data set's clock is CLOCK (a Friday, at the close of the US market);
prices cover the trading days of the year before it. Edge cases the
evaluation relies on:
  KSTM   its last quote is weeks old (trading halted on 2026-10-23)
  QLTX   listed, but the data set has no price for it at all
  APXB / APXI   "Apex Biotech" and "Apex Industrial": the name "Apex" is ambiguous
  GFTC   no news articles
  BRK.B, BF-B   class-share tickers, each in its listing's own form
"""

import datetime
import math
import random
import sys

SEED = 20261127
CLOCK = "2026-11-27T21:00:00Z"
CLOCK_DATE = datetime.date(2026, 11, 27)
FIRST_DATE = datetime.date(2025, 11, 28)
SOURCE = "market-analyst synthetic data set v1 (invented figures, not market data)"

# US market holidays inside the window (the exchange is closed).
HOLIDAYS = {
    "2025-12-25", "2026-01-01", "2026-01-19", "2026-02-16", "2026-04-03",
    "2026-05-25", "2026-06-19", "2026-07-03", "2026-09-07", "2026-11-26",
}

# The last trading day KSTM has a quote for.
KSTM_LAST = "2026-10-23"

# ticker, name, aliases, sector, industry, exchange, shares (millions),
# price a year ago, yearly drift, yearly volatility, revenue of the latest
# fiscal year (USD millions), yearly revenue growth, gross / operating /
# net margin, fiscal year end (month, day), summary.
COMPANIES = [
    ("AAPL", "Apple Inc.", "", "Information Technology", "Consumer Electronics", "NASDAQ", 15100, 231.0, 0.10, 0.24, 402000, 0.05, 0.46, 0.31, 0.25, (9, 27),
     "Designs iPhone, Mac, iPad and wearables, and sells services such as the App Store and iCloud."),
    ("MSFT", "Microsoft Corporation", "", "Information Technology", "Software", "NASDAQ", 7430, 422.0, 0.12, 0.22, 281000, 0.14, 0.69, 0.45, 0.36, (6, 30),
     "Sells cloud computing (Azure), Office and Windows software, LinkedIn and Xbox gaming."),
    ("NVDA", "NVIDIA Corporation", "", "Information Technology", "Semiconductors", "NASDAQ", 24400, 138.0, 0.25, 0.48, 130000, 0.60, 0.75, 0.62, 0.55, (1, 25),
     "Designs GPUs and accelerated-computing platforms for data centres, gaming and automotive."),
    ("ORCL", "Oracle Corporation", "", "Information Technology", "Software", "NYSE", 2800, 188.0, 0.15, 0.38, 57400, 0.09, 0.71, 0.31, 0.21, (5, 31),
     "Sells database software, enterprise applications and Oracle Cloud Infrastructure."),
    ("GOOGL", "Alphabet Inc. Class A", "Google", "Communication Services", "Interactive Media", "NASDAQ", 12200, 169.0, 0.14, 0.30, 371000, 0.13, 0.59, 0.32, 0.29, (12, 31),
     "Runs Google Search, YouTube, Android and Google Cloud; earns mostly from advertising."),
    ("META", "Meta Platforms, Inc.", "Facebook", "Communication Services", "Interactive Media", "NASDAQ", 2520, 577.0, 0.12, 0.34, 178000, 0.19, 0.82, 0.42, 0.37, (12, 31),
     "Runs Facebook, Instagram, WhatsApp and Messenger; invests in AI and mixed reality."),
    ("NFLX", "Netflix, Inc.", "", "Communication Services", "Entertainment", "NASDAQ", 428, 897.0, 0.10, 0.32, 42800, 0.15, 0.47, 0.28, 0.23, (12, 31),
     "Streams films and series to paying members in over 190 countries."),
    ("AMZN", "Amazon.com, Inc.", "", "Consumer Discretionary", "Broadline Retail", "NASDAQ", 10600, 207.0, 0.11, 0.30, 678000, 0.11, 0.49, 0.11, 0.09, (12, 31),
     "Sells goods online, runs a marketplace and Prime, and sells cloud services through AWS."),
    ("TSLA", "Tesla, Inc.", "", "Consumer Discretionary", "Automobiles", "NASDAQ", 3220, 332.0, 0.05, 0.58, 98000, 0.02, 0.18, 0.07, 0.07, (12, 31),
     "Makes electric vehicles, batteries and solar energy systems."),
    ("HD", "The Home Depot, Inc.", "Home Depot", "Consumer Discretionary", "Home Improvement Retail", "NYSE", 993, 412.0, 0.06, 0.22, 161000, 0.04, 0.33, 0.13, 0.09, (2, 1),
     "Runs home-improvement stores and sells building materials, tools and garden supplies."),
    ("KO", "The Coca-Cola Company", "Coke", "Consumer Staples", "Beverages", "NYSE", 4310, 64.0, 0.05, 0.15, 47500, 0.03, 0.61, 0.29, 0.23, (12, 31),
     "Makes and licenses soft drinks, water, juice and coffee brands sold in over 200 countries."),
    ("PEP", "PepsiCo, Inc.", "Pepsi", "Consumer Staples", "Beverages", "NASDAQ", 1370, 162.0, 0.02, 0.17, 92800, 0.01, 0.55, 0.14, 0.10, (12, 31),
     "Makes beverages and snacks, including Pepsi, Gatorade, Lay's and Quaker."),
    ("PG", "The Procter & Gamble Company", "Procter and Gamble", "Consumer Staples", "Household Products", "NYSE", 2350, 171.0, 0.04, 0.16, 84900, 0.02, 0.51, 0.24, 0.18, (6, 30),
     "Makes household and personal-care products such as Tide, Pampers and Gillette."),
    ("WMT", "Walmart Inc.", "", "Consumer Staples", "Consumer Staples Retail", "NYSE", 8010, 89.0, 0.15, 0.20, 681000, 0.05, 0.25, 0.04, 0.03, (1, 31),
     "Runs discount stores, Sam's Club warehouses and e-commerce in the US and abroad."),
    ("BF-B", "Brown-Forman Corporation Class B", "Brown Forman", "Consumer Staples", "Distillers & Vintners", "NYSE", 473, 44.0, -0.15, 0.28, 4100, -0.03, 0.59, 0.29, 0.21, (4, 30),
     "Makes and sells spirits and wine, including Jack Daniel's, Woodford Reserve and el Jimador."),
    ("JPM", "JPMorgan Chase & Co.", "JP Morgan", "Financials", "Banks", "NYSE", 2780, 243.0, 0.12, 0.22, 177000, 0.06, 1.00, 0.38, 0.32, (12, 31),
     "Provides consumer and commercial banking, investment banking and asset management."),
    ("BAC", "Bank of America Corporation", "", "Financials", "Banks", "NYSE", 7610, 46.0, 0.10, 0.25, 102000, 0.04, 1.00, 0.31, 0.27, (12, 31),
     "Provides banking, lending, wealth management and markets services to people and companies."),
    ("BRK.B", "Berkshire Hathaway Inc. Class B", "Berkshire", "Financials", "Multi-Sector Holdings", "NYSE", 2160, 478.0, 0.08, 0.16, 371000, 0.02, 0.28, 0.14, 0.20, (12, 31),
     "Owns insurance businesses (GEICO), BNSF railway, energy utilities and a large stock portfolio."),
    ("V", "Visa Inc.", "", "Financials", "Transaction & Payment Processing", "NYSE", 1960, 312.0, 0.09, 0.19, 38900, 0.10, 0.80, 0.67, 0.54, (9, 30),
     "Runs a global card payments network that connects consumers, merchants and banks."),
    ("MA", "Mastercard Incorporated", "", "Financials", "Transaction & Payment Processing", "NYSE", 917, 526.0, 0.10, 0.19, 31600, 0.12, 0.77, 0.58, 0.46, (12, 31),
     "Runs a global payments network and sells data and fraud-prevention services."),
    ("JNJ", "Johnson & Johnson", "J&J", "Health Care", "Pharmaceuticals", "NYSE", 2410, 154.0, 0.06, 0.17, 92100, 0.04, 0.69, 0.26, 0.19, (12, 31),
     "Develops prescription medicines and medical-technology devices."),
    ("PFE", "Pfizer Inc.", "", "Health Care", "Pharmaceuticals", "NYSE", 5680, 25.6, 0.01, 0.24, 63200, -0.02, 0.72, 0.24, 0.14, (12, 31),
     "Discovers and sells medicines and vaccines in oncology, immunology and vaccines."),
    ("UNH", "UnitedHealth Group Incorporated", "UnitedHealth", "Health Care", "Managed Health Care", "NYSE", 905, 605.0, -0.20, 0.36, 410000, 0.07, 0.22, 0.06, 0.04, (12, 31),
     "Runs health insurance plans (UnitedHealthcare) and health services (Optum)."),
    ("LLY", "Eli Lilly and Company", "Lilly", "Health Care", "Pharmaceuticals", "NYSE", 898, 772.0, 0.18, 0.30, 58400, 0.32, 0.82, 0.40, 0.29, (12, 31),
     "Develops medicines for diabetes, obesity, oncology and immunology."),
    ("APXB", "Apex Biotech Inc.", "", "Health Care", "Biotechnology", "NASDAQ", 186, 38.5, 0.20, 0.55, 1240, 0.22, 0.78, 0.08, 0.05, (12, 31),
     "Develops antibody therapies for autoimmune disease; one approved drug and three in trials."),
    ("APXI", "Apex Industrial Corp.", "", "Industrials", "Industrial Machinery", "NYSE", 142, 71.0, 0.06, 0.26, 5310, 0.04, 0.29, 0.12, 0.08, (12, 31),
     "Makes rail braking systems, hydraulic components and aerospace actuators."),
    ("QLTX", "Quill Therapeutics Inc.", "", "Health Care", "Biotechnology", "NASDAQ", 64, 0.0, 0.0, 0.0, 42, 0.35, 0.60, -1.90, -2.10, (12, 31),
     "Clinical-stage company developing gene therapies for rare eye diseases; listed on NASDAQ in 2026."),
    ("XOM", "Exxon Mobil Corporation", "ExxonMobil", "Energy", "Integrated Oil & Gas", "NYSE", 4340, 119.0, 0.00, 0.22, 339000, -0.03, 0.31, 0.14, 0.10, (12, 31),
     "Explores for and produces oil and natural gas, and refines and sells fuels and chemicals."),
    ("CVX", "Chevron Corporation", "", "Energy", "Integrated Oil & Gas", "NYSE", 1750, 161.0, -0.02, 0.23, 193000, -0.04, 0.35, 0.13, 0.09, (12, 31),
     "Produces oil and natural gas, and refines and markets fuels worldwide."),
    ("CAT", "Caterpillar Inc.", "", "Industrials", "Construction Machinery", "NYSE", 478, 392.0, 0.12, 0.28, 64800, 0.01, 0.35, 0.20, 0.16, (12, 31),
     "Makes construction and mining equipment, engines and locomotives."),
    ("BA", "The Boeing Company", "Boeing", "Industrials", "Aerospace & Defense", "NYSE", 757, 154.0, 0.14, 0.36, 80200, 0.08, 0.05, -0.08, -0.10, (12, 31),
     "Builds commercial airplanes, defence and space systems, and provides aviation services."),
    ("KSTM", "Kestrel Mining Corp.", "", "Materials", "Metals & Mining", "NYSE", 310, 27.4, -0.10, 0.45, 3900, -0.06, 0.24, 0.10, 0.06, (12, 31),
     "Mines copper and zinc in Chile and Canada; trading in its shares is halted pending a restatement."),
    ("GFTC", "Granite Falls Timber Co.", "Granite Falls", "Materials", "Forest Products", "NYSE", 88, 23.2, 0.03, 0.21, 1130, 0.02, 0.21, 0.09, 0.06, (12, 31),
     "Owns timberlands in the Pacific Northwest and makes lumber and engineered wood."),
    ("NEE", "NextEra Energy, Inc.", "NextEra", "Utilities", "Electric Utilities", "NYSE", 2060, 78.0, 0.04, 0.21, 26300, 0.05, 0.63, 0.32, 0.25, (12, 31),
     "Runs Florida Power & Light and develops wind, solar and battery-storage projects."),
    ("DUK", "Duke Energy Corporation", "Duke", "Utilities", "Electric Utilities", "NYSE", 777, 114.0, 0.05, 0.16, 30900, 0.04, 0.56, 0.26, 0.15, (12, 31),
     "Supplies electricity and natural gas to customers in the Carolinas, Florida and the Midwest."),
    ("PLD", "Prologis, Inc.", "", "Real Estate", "Industrial REITs", "NYSE", 927, 118.0, 0.03, 0.24, 8200, 0.07, 0.75, 0.42, 0.39, (12, 31),
     "Owns and leases logistics warehouses and distribution centres in 20 countries."),
]

# Pairs of competitors (both directions are stored) and how they overlap.
COMPETITORS = [
    ("AAPL", "MSFT", "personal computers, operating systems and productivity software"),
    ("AAPL", "GOOGL", "smartphone operating systems, app stores and digital services"),
    ("MSFT", "GOOGL", "cloud computing, productivity software and AI assistants"),
    ("MSFT", "ORCL", "databases and cloud infrastructure"),
    ("MSFT", "AMZN", "cloud computing (Azure against AWS)"),
    ("ORCL", "AMZN", "cloud infrastructure"),
    ("ORCL", "GOOGL", "cloud infrastructure"),
    ("NVDA", "GOOGL", "AI accelerators (GPUs against TPUs)"),
    ("NVDA", "AMZN", "AI accelerators (GPUs against Trainium)"),
    ("GOOGL", "META", "digital advertising"),
    ("GOOGL", "AMZN", "cloud computing and digital advertising"),
    ("META", "NFLX", "time spent on screens and video"),
    ("NFLX", "GOOGL", "online video (YouTube)"),
    ("NFLX", "AMZN", "video streaming (Prime Video)"),
    ("AMZN", "WMT", "retail, online and in stores"),
    ("HD", "WMT", "home and garden goods"),
    ("KO", "PEP", "soft drinks, water and sports drinks"),
    ("BF-B", "KO", "beverages on the same shelves and in the same bars"),
    ("BF-B", "PEP", "beverages on the same shelves and in the same bars"),
    ("PG", "JNJ", "consumer health and personal care"),
    ("JPM", "BAC", "consumer, commercial and investment banking"),
    ("BRK.B", "JPM", "financial conglomerates with insurance and banking exposure"),
    ("V", "MA", "card payment networks"),
    ("JNJ", "PFE", "prescription medicines"),
    ("JNJ", "LLY", "prescription medicines"),
    ("PFE", "LLY", "prescription medicines"),
    ("PFE", "APXB", "immunology medicines"),
    ("LLY", "APXB", "immunology medicines"),
    ("APXB", "QLTX", "biotechnology research and funding"),
    ("XOM", "CVX", "oil and gas production, refining and chemicals"),
    ("CAT", "APXI", "heavy equipment and hydraulic components"),
    ("BA", "APXI", "aerospace components and actuators"),
    ("NEE", "DUK", "regulated electricity in the south-eastern US"),
]

PUBLISHERS = ["Market Wire", "The Ledger", "Capital Daily", "Sector Watch",
              "Northbridge Research", "Global Business Desk"]

# Headline templates by mood; {name} is the company's short name.
HEADLINES = {
    "up": [
        ("{name} beats quarterly estimates as {segment} demand grows",
         ["Quarterly revenue came in above analyst estimates", "Management pointed to strong demand in {segment}", "Guidance for the next quarter was raised"]),
        ("{name} raises full-year outlook",
         ["The company lifted its full-year revenue outlook", "Cost discipline supported margins", "Analysts called the update better than feared"]),
        ("Analysts upgrade {name} on {segment} momentum",
         ["Two brokers moved the stock to buy", "The upgrade cites growth in {segment}", "Price targets were raised"]),
    ],
    "down": [
        ("{name} shares slip after cautious guidance",
         ["Next-quarter guidance came in below estimates", "Management cited softer {segment} demand", "The company kept its dividend unchanged"]),
        ("{name} faces regulatory review of {segment} business",
         ["Regulators opened a review of the {segment} business", "The company said it will cooperate fully", "No financial impact has been estimated yet"]),
        ("Analysts trim targets on {name} as costs rise",
         ["Input costs rose faster than expected", "Margins narrowed compared with last year", "Several analysts cut their price targets"]),
    ],
    "neutral": [
        ("{name} announces leadership changes",
         ["A new chief financial officer starts next quarter", "The board said strategy is unchanged"]),
        ("{name} to present at investor conference",
         ["Executives will present at an industry conference in December", "The company will webcast the session"]),
        ("{name} completes small acquisition in {segment}",
         ["The deal adds capabilities in {segment}", "Terms were not disclosed", "The company expects no change to its outlook"]),
    ],
}

# Special articles: (ticker or None, date, publisher, relevance, headline, key points).
SPECIAL_NEWS = [
    ("KSTM", "2026-10-23T19:10:00Z", "Market Wire", 0.98,
     "Trading in Kestrel Mining halted pending restatement of reserve estimates",
     ["The NYSE halted trading in KSTM on October 23", "Kestrel expects to restate ore-reserve estimates for 2024 and 2025", "No date has been set for trading to resume"]),
    ("KSTM", "2026-11-12T14:00:00Z", "Sector Watch", 0.81,
     "Kestrel Mining says restated filings will come by year-end",
     ["The company expects to file restated reports by December 31", "Trading in the shares remains halted"]),
    ("QLTX", "2026-06-18T13:30:00Z", "Capital Daily", 0.92,
     "Quill Therapeutics lists on NASDAQ through a direct listing",
     ["Quill Therapeutics began trading on NASDAQ as QLTX", "The company raised no new money in the listing", "Its lead gene therapy, QL-101, is in a Phase 2 trial"]),
    ("QLTX", "2026-11-09T12:00:00Z", "Northbridge Research", 0.77,
     "Quill Therapeutics reports Phase 2 enrolment complete for QL-101",
     ["Enrolment in the Phase 2 trial of QL-101 is complete", "Top-line data are expected in the second half of 2027", "Cash is expected to last into 2028"]),
    ("APXB", "2026-11-18T13:00:00Z", "Capital Daily", 0.95,
     "Apex Biotech reports positive Phase 2 data for APX-201 in lupus",
     ["APX-201 met its primary endpoint in a Phase 2 lupus trial", "Apex Biotech plans a Phase 3 start in 2027", "The company reaffirmed its full-year revenue outlook"]),
    ("APXI", "2026-11-04T11:30:00Z", "The Ledger", 0.90,
     "Apex Industrial wins a multi-year rail braking contract in Europe",
     ["Apex Industrial will supply braking systems for 400 rail cars", "Deliveries start in 2027", "The company did not disclose the contract's value"]),
    (None, "2026-11-18T19:00:00Z", "Global Business Desk", 0.70,
     "Federal Reserve leaves interest rates unchanged, signals patience",
     ["The Federal Reserve kept its policy rate unchanged", "Officials said inflation is easing slowly", "Markets expect a cut in early 2027"]),
    (None, "2026-11-24T15:00:00Z", "Market Wire", 0.62,
     "Holiday retail sales forecast to grow modestly this year",
     ["An industry group forecasts holiday sales growth of about 3 percent", "Online sales are expected to grow faster than store sales"]),
    (None, "2026-11-02T13:00:00Z", "The Ledger", 0.58,
     "Copper prices climb on supply disruptions in South America",
     ["Copper rose to its highest level in five months", "Strikes and halts in Chile and Peru cut supply"]),
]

# Companies without generated news: GFTC has none at all; the special ones only theirs.
NO_GENERATED_NEWS = {"GFTC", "KSTM", "QLTX"}


def sql_text(value):
    if value is None:
        return "NULL"
    return "'" + str(value).replace("'", "''") + "'"


def money(x):
    return f"{x:.2f}"


def trading_days():
    day = FIRST_DATE
    days = []
    while day <= CLOCK_DATE:
        if day.weekday() < 5 and day.isoformat() not in HOLIDAYS:
            days.append(day)
        day += datetime.timedelta(days=1)
    return days


def close_utc(day):
    """16:00 in New York, in UTC: 20:00 during daylight saving time, else 21:00."""
    dst_2026 = datetime.date(2026, 3, 8) <= day < datetime.date(2026, 11, 1)
    return f"{day.isoformat()}T{20 if dst_2026 else 21}:00:00Z"


def short_name(name):
    for suffix in [" Class A", " Class B", ", Inc.", " Inc.", " Corporation", " Incorporated",
                   " Corp.", " Co.", " & Co.", " Company", " Group"]:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name.startswith("The "):
        name = name[4:]
    return name


def main():
    rng = random.Random(SEED)
    out = []
    emit = out.append
    emit("-- market-analyst synthetic data set. Generated by data/generate.py; do not edit.")
    emit("-- Every figure is invented. Clock: " + CLOCK)
    emit("BEGIN;")
    emit("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);")
    emit("CREATE TABLE companies (ticker TEXT PRIMARY KEY, name TEXT NOT NULL, aliases TEXT NOT NULL, "
         "sector TEXT NOT NULL, industry TEXT NOT NULL, exchange TEXT NOT NULL, currency TEXT NOT NULL, "
         "shares_outstanding INTEGER NOT NULL, summary TEXT NOT NULL);")
    emit("CREATE TABLE trading_days (date TEXT PRIMARY KEY, close_utc TEXT NOT NULL);")
    emit("CREATE TABLE prices (ticker TEXT NOT NULL, date TEXT NOT NULL, open REAL NOT NULL, "
         "high REAL NOT NULL, low REAL NOT NULL, close REAL NOT NULL, volume INTEGER NOT NULL, "
         "PRIMARY KEY (ticker, date));")
    emit("CREATE TABLE financials (ticker TEXT NOT NULL, fiscal_year INTEGER NOT NULL, period_end TEXT NOT NULL, "
         "revenue REAL NOT NULL, gross_profit REAL NOT NULL, operating_income REAL NOT NULL, "
         "net_income REAL NOT NULL, eps_diluted REAL NOT NULL, PRIMARY KEY (ticker, fiscal_year));")
    emit("CREATE TABLE news (id TEXT PRIMARY KEY, ticker TEXT, headline TEXT NOT NULL, source TEXT NOT NULL, "
         "published_at TEXT NOT NULL, relevance REAL NOT NULL);")
    emit("CREATE TABLE news_points (news_id TEXT NOT NULL, position INTEGER NOT NULL, text TEXT NOT NULL, "
         "PRIMARY KEY (news_id, position));")
    emit("CREATE TABLE competitors (ticker TEXT NOT NULL, competitor TEXT NOT NULL, overlap TEXT NOT NULL, "
         "PRIMARY KEY (ticker, competitor));")

    for key, value in [("clock", CLOCK), ("source", SOURCE), ("seed", str(SEED))]:
        emit(f"INSERT INTO meta VALUES ({sql_text(key)}, {sql_text(value)});")

    for c in COMPANIES:
        ticker, name, aliases, sector, industry, exchange, shares = c[:7]
        summary = c[-1]
        emit("INSERT INTO companies VALUES (" + ", ".join([
            sql_text(ticker), sql_text(name), sql_text(aliases), sql_text(sector), sql_text(industry),
            sql_text(exchange), sql_text("USD"), str(shares * 1_000_000), sql_text(summary)]) + ");")

    days = trading_days()
    emit("INSERT INTO trading_days VALUES")
    emit(",\n".join(f"({sql_text(d.isoformat())}, {sql_text(close_utc(d))})" for d in days) + ";")

    # Prices: a random walk per company, in the order of COMPANIES.
    for c in COMPANIES:
        ticker, shares, start, drift, vol = c[0], c[6], c[7], c[8], c[9]
        if ticker == "QLTX":
            continue
        daily_vol = vol / math.sqrt(252)
        base_volume = max(200_000, int(shares * 1_000_000 * 0.004 * (1 + rng.random())))
        close = start
        rows = []
        for day in days:
            if ticker == "KSTM" and day.isoformat() > KSTM_LAST:
                break
            opened = close * math.exp(rng.gauss(0, daily_vol * 0.3))
            close = opened * math.exp(drift / 252 + rng.gauss(0, daily_vol * 0.9))
            high = max(opened, close) * (1 + abs(rng.gauss(0, daily_vol * 0.5)))
            low = min(opened, close) * (1 - abs(rng.gauss(0, daily_vol * 0.5)))
            volume = int(base_volume * math.exp(rng.gauss(0, 0.35)))
            rows.append(f"({sql_text(ticker)},{sql_text(day.isoformat())},{money(opened)},"
                        f"{money(high)},{money(low)},{money(close)},{volume})")
            close = float(money(close))
        emit("INSERT INTO prices VALUES")
        emit(",\n".join(rows) + ";")

    # Financials: the latest three fiscal years (two for QLTX, listed in 2026).
    for c in COMPANIES:
        ticker, shares = c[0], c[6]
        revenue, growth, gross, operating, net = c[10], c[11], c[12], c[13], c[14]
        month, day = c[15]
        years = 2 if ticker == "QLTX" else 3
        # The latest fiscal year reported by the clock (results come ~6 weeks after its end).
        latest_year = CLOCK_DATE.year
        if datetime.date(latest_year, month, day) + datetime.timedelta(days=45) > CLOCK_DATE:
            latest_year -= 1
        for back in range(years):
            year = latest_year - back
            rev = revenue / ((1 + growth) ** back) * (1 + rng.gauss(0, 0.01))
            g = min(1.0, gross + rng.gauss(0, 0.005))
            o = operating + rng.gauss(0, 0.006)
            n = net + rng.gauss(0, 0.006)
            net_income = rev * n
            eps = net_income / shares
            period_end = datetime.date(year, month, day).isoformat()
            emit("INSERT INTO financials VALUES (" + ", ".join([
                sql_text(ticker), str(year), sql_text(period_end), money(rev), money(rev * g),
                money(rev * o), money(net_income), money(eps)]) + ");")

    # News: special articles first, then generated ones, newest ids last.
    news = []
    for ticker, published, publisher, relevance, headline, points in SPECIAL_NEWS:
        news.append((ticker, published, publisher, relevance, headline, points))
    segments = {
        "Information Technology": ["cloud", "AI", "enterprise"],
        "Communication Services": ["advertising", "subscription", "AI"],
        "Consumer Discretionary": ["online", "premium", "international"],
        "Consumer Staples": ["international", "premium", "value"],
        "Financials": ["payments", "lending", "wealth management"],
        "Health Care": ["oncology", "immunology", "obesity"],
        "Energy": ["upstream", "refining", "chemicals"],
        "Industrials": ["aftermarket", "defence", "rail"],
        "Materials": ["copper", "lumber", "export"],
        "Utilities": ["renewables", "grid", "data-centre power"],
        "Real Estate": ["logistics", "data-centre", "leasing"],
    }
    for c in COMPANIES:
        ticker, name, sector = c[0], c[1], c[3]
        if ticker in NO_GENERATED_NEWS:
            continue
        count = 2 + rng.randrange(4)
        for _ in range(count):
            mood = rng.choice(["up", "up", "down", "neutral"])
            template, points = rng.choice(HEADLINES[mood])
            segment = rng.choice(segments[sector])
            published = CLOCK_DATE - datetime.timedelta(days=rng.randrange(0, 75))
            hour = 11 + rng.randrange(10)
            minute = rng.choice([0, 15, 30, 45])
            news.append((ticker, f"{published.isoformat()}T{hour:02d}:{minute:02d}:00Z",
                         rng.choice(PUBLISHERS), round(0.35 + rng.random() * 0.6, 2),
                         template.format(name=short_name(name), segment=segment),
                         [p.format(segment=segment) for p in points]))
    for i, (ticker, published, publisher, relevance, headline, points) in enumerate(news, start=1):
        news_id = f"n{i:04d}"
        emit("INSERT INTO news VALUES (" + ", ".join([
            sql_text(news_id), sql_text(ticker), sql_text(headline), sql_text(publisher),
            sql_text(published), f"{relevance:.2f}"]) + ");")
        for position, text in enumerate(points, start=1):
            emit(f"INSERT INTO news_points VALUES ({sql_text(news_id)}, {position}, {sql_text(text)});")

    for a, b, overlap in COMPETITORS:
        emit(f"INSERT INTO competitors VALUES ({sql_text(a)}, {sql_text(b)}, {sql_text(overlap)});")
        emit(f"INSERT INTO competitors VALUES ({sql_text(b)}, {sql_text(a)}, {sql_text(overlap)});")

    emit("COMMIT;")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
