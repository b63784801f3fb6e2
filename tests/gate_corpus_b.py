"""A second planted-secret suite and clean corpus for the gate, written independently of
``tests/gate_corpus.py``: other bodies and departments of the seven markets and their short
forms, other currencies and number words, other date forms, other obfuscations of e-mails,
phones and URLs, other portals, other person names, other sentences around them. It measures
how well the gate's rules generalise (a reviewer's held-out suite is written differently again).

``planted_b()``: secrets in summaries, each with the private record it belongs to (the same
``Planted`` as the first suite, so ``gate_corpus.record_secrets`` reads them).
``clean_b()``: clean summaries, plain and technical, in English and Chinese.
"""

import random

from tenders.chinese import to_simplified, to_traditional
from tenders.sanitize.names import abbreviation_rule
from tests.gate_corpus import Planted

# Sentences a curator or a draft writes around a name (English, then Chinese in Traditional
# script; Simplified is derived).
NAME_EN = [
    "The {x} is seeking suppliers for a three-year cleaning contract.",
    "Framework for IT hardware on behalf of {x}; lots for desktops and monitors.",
    "Works at several depots run by {x}. Site visits available.",
    "Provision of security guarding services ({x}).",
    "Call-off contract for catering services, buyer: {x}.",
    "Consultancy for a feasibility study commissioned by {x}.",
    "{x} - supply and installation of LED lighting in car parks.",
    "Replacement of chillers at premises of {x}, including removal of old units.",
]
NAME_ZH = [
    "{x}現正招標，承辦為期三年的清潔服務合約。",
    "代表{x}採購資訊科技硬件，分為桌面電腦及顯示器兩組。",
    "{x}轄下多個車廠的維修工程，可安排實地視察。",
    "提供保安服務（{x}）。",
    "顧問服務：{x}委託進行可行性研究。",
    "為{x}供應及安裝LED照明系統。",
]

# Bodies of the seven markets: (market, main name, other names a summary may use).
BODIES = [
    # Hong Kong: policy bureaux, departments, statutory bodies, in both scripts.
    ("HK", "Security Bureau", ["保安局", "SB"]),
    ("HK", "Financial Services and the Treasury Bureau", ["財經事務及庫務局", "FSTB", "財庫局"]),
    ("HK", "Transport and Logistics Bureau", ["運輸及物流局", "TLB", "运输及物流局"]),
    ("HK", "Housing Bureau", ["房屋局", "HB"]),
    ("HK", "Labour and Welfare Bureau", ["勞工及福利局", "LWB", "劳福局"]),
    ("HK", "Home and Youth Affairs Bureau", ["民政及青年事務局", "HYAB", "民青局"]),
    ("HK", "Innovation, Technology and Industry Bureau", ["創新科技及工業局", "ITIB", "創科局"]),
    ("HK", "Culture, Sports and Tourism Bureau", ["文化體育及旅遊局", "CSTB", "文體旅局"]),
    ("HK", "Commerce and Economic Development Bureau", ["商務及經濟發展局", "CEDB", "商經局"]),
    ("HK", "Civil Service Bureau", ["公務員事務局", "CSB", "公務員局"]),
    ("HK", "Companies Registry", ["公司註冊處", "公司注册处", "CR"]),
    ("HK", "Radio Television Hong Kong", ["香港電台", "RTHK", "港台"]),
    ("HK", "Government Secretariat", ["政府總部", "政府总部"]),
    ("HK", "Efficiency Office", ["效率促進辦公室", "效率办"]),
    ("HK", "Official Receiver's Office", ["破產管理署", "破产管理署", "ORO"]),
    ("HK", "Registration and Electoral Office", ["選舉事務處", "REO"]),
    ("HK", "Office of the Communications Authority", ["通訊事務管理局辦公室", "OFCA", "通訊辦"]),
    ("HK", "Government Records Service", ["政府檔案處", "GRS"]),
    ("HK", "Hong Kong Auxiliary Police Force", ["香港輔助警察隊", "HKAPF", "輔警"]),
    ("HK", "MTR Corporation", ["香港鐵路有限公司", "港鐵公司", "MTRC", "港铁公司"]),
    ("HK", "Hong Kong Applied Science and Technology Research Institute", ["應科院", "ASTRI"]),
    ("HK", "Cyberport", ["數碼港", "数码港", "Hong Kong Cyberport Management Company"]),
    ("HK", "The University of Hong Kong", ["香港大學", "香港大学", "HKU", "港大"]),
    ("HK", "The Chinese University of Hong Kong", ["香港中文大學", "CUHK", "中大"]),
    ("HK", "The Hong Kong Polytechnic University", ["香港理工大學", "PolyU", "理大"]),
    ("HK", "City University of Hong Kong", ["香港城市大學", "CityU", "城大"]),
    ("HK", "Queen Mary Hospital", ["瑪麗醫院", "玛丽医院", "QMH"]),
    ("HK", "Prince of Wales Hospital", ["威爾斯親王醫院", "PWH"]),
    ("HK", "Queen Elizabeth Hospital", ["伊利沙伯醫院", "QEH"]),
    ("HK", "Sha Tin District Council", ["沙田區議會", "沙田区议会"]),
    ("HK", "Kwun Tong District Council", ["觀塘區議會", "观塘区议会"]),
    ("HK", "Hong Kong Academy for Performing Arts", ["香港演藝學院", "HKAPA", "演藝學院"]),
    ("HK", "Student Finance Office", ["學生資助處", "学生资助处", "SFO"]),
    (
        "HK",
        "Working Family and Student Financial Assistance Agency",
        ["WFSFAA", "在職家庭及學生資助事務處"],
    ),
    ("HK", "Hong Kong Heritage Museum", ["香港文化博物館"]),
    # Macao
    (
        "MO",
        "Commission Against Corruption",
        ["澳門廉政公署", "CCAC", "Comissariado contra a Corrupção"],
    ),
    (
        "MO",
        "Macao Trade and Investment Promotion Institute",
        ["澳門貿易投資促進局", "IPIM", "貿促局"],
    ),
    ("MO", "Printing Bureau", ["印務局", "印务局", "Imprensa Oficial"]),
    ("MO", "Cartography and Cadastre Bureau", ["地圖繪製暨地籍局", "DSCC", "地圖繪製局"]),
    ("MO", "Gaming Inspection and Coordination Bureau", ["博彩監察協調局", "DICJ", "博監局"]),
    ("MO", "Civil Aviation Authority Macao", ["澳門民航局", "AACM", "民航局"]),
    ("MO", "Macao Pension Fund", ["退休基金會", "退休基金会", "FP", "Fundo de Pensões"]),
    ("MO", "Macao Foundation", ["澳門基金會", "澳门基金会", "FMac"]),
    ("MO", "Science and Technology Development Fund", ["科學技術發展基金", "FDCT", "科技基金"]),
    ("MO", "Public Prosecutions Office", ["檢察院", "检察院", "Ministério Público"]),
    (
        "MO",
        "Unitary Police Service",
        ["警察總局", "警察总局", "SPU", "Serviços de Polícia Unitários"],
    ),
    ("MO", "Macau Light Rapid Transit Corporation", ["澳門輕軌股份有限公司", "MLM", "輕軌公司"]),
    (
        "MO",
        "Conde S. Januário Hospital",
        ["仁伯爵綜合醫院", "仁伯爵综合医院", "Hospital Conde de São Januário"],
    ),
    ("MO", "Office of the Secretary for Transport and Public Works", ["運輸工務司司長辦公室"]),
    # Singapore: statutory boards, polytechnics, hospitals, clusters, town councils.
    ("SG", "Sentosa Development Corporation", ["圣淘沙发展局", "SDC"]),
    ("SG", "National Arts Council", ["国家艺术理事会", "NAC"]),
    (
        "SG",
        "Competition and Consumer Commission of Singapore",
        ["新加坡竞争与消费者委员会", "CCCS"],
    ),
    ("SG", "Intellectual Property Office of Singapore", ["新加坡知识产权局", "IPOS"]),
    ("SG", "Institute of Technical Education", ["工艺教育学院", "ITE"]),
    ("SG", "Nanyang Polytechnic", ["南洋理工学院", "NYP"]),
    ("SG", "Temasek Polytechnic", ["淡马锡理工学院", "TP"]),
    ("SG", "Ngee Ann Polytechnic", ["义安理工学院", "NP"]),
    ("SG", "National University of Singapore", ["新加坡国立大学", "NUS", "国大"]),
    ("SG", "Nanyang Technological University", ["南洋理工大学", "NTU", "南大"]),
    ("SG", "Changi General Hospital", ["樟宜综合医院", "CGH"]),
    ("SG", "KK Women's and Children's Hospital", ["竹脚妇幼医院", "KKH"]),
    ("SG", "National University Hospital", ["国立大学医院", "NUH"]),
    ("SG", "National Healthcare Group", ["国立健保集团", "NHG"]),
    ("SG", "SingHealth", ["新加坡保健服务集团", "Singapore Health Services"]),
    ("SG", "Cyber Security Agency of Singapore", ["新加坡网络安全局", "CSA"]),
    ("SG", "Home Team Science and Technology Agency", ["内政科技局", "HTX"]),
    ("SG", "Central Narcotics Bureau", ["中央肃毒局", "CNB"]),
    ("SG", "Health Sciences Authority", ["卫生科学局", "HSA"]),
    ("SG", "Early Childhood Development Agency", ["幼儿培育署", "ECDA"]),
    ("SG", "Singapore Examinations and Assessment Board", ["新加坡考试与评鉴局", "SEAB"]),
    ("SG", "Tampines Town Council", ["淡滨尼市镇理事会"]),
    ("SG", "Public Transport Council", ["公共交通理事会", "PTC"]),
    ("SG", "Majlis Ugama Islam Singapura", ["新加坡回教理事会", "MUIS"]),
    # United Kingdom
    ("GB", "Department for Business and Trade", ["DBT"]),
    ("GB", "Department for Science, Innovation and Technology", ["DSIT"]),
    ("GB", "Department for Energy Security and Net Zero", ["DESNZ"]),
    ("GB", "HM Courts & Tribunals Service", ["HMCTS", "HM Courts and Tribunals Service"]),
    ("GB", "HM Prison and Probation Service", ["HMPPS"]),
    ("GB", "Driver and Vehicle Licensing Agency", ["DVLA"]),
    ("GB", "Driver and Vehicle Standards Agency", ["DVSA"]),
    ("GB", "Metropolitan Police Service", ["Met Police", "MPS"]),
    ("GB", "Transport Scotland", ["Transport Scotland"]),
    ("GB", "Scottish Water", ["Scottish Water"]),
    ("GB", "Natural England", ["Natural England"]),
    ("GB", "Historic England", ["Historic England"]),
    ("GB", "UK Research and Innovation", ["UKRI"]),
    ("GB", "Homes England", ["Homes England"]),
    ("GB", "Valuation Office Agency", ["VOA"]),
    ("GB", "Companies House", ["Companies House"]),
    ("GB", "Office for National Statistics", ["ONS"]),
    ("GB", "UK Health Security Agency", ["UKHSA"]),
    ("GB", "Crown Prosecution Service", ["CPS"]),
    ("GB", "Transport for Greater Manchester", ["TfGM"]),
    ("GB", "HS2 Ltd", ["High Speed Two", "HS2"]),
    ("GB", "Greater Manchester Combined Authority", ["GMCA"]),
    ("GB", "NHS Shared Business Services", ["NHS SBS"]),
    ("GB", "Leeds Teaching Hospitals NHS Trust", ["Leeds Teaching Hospitals"]),
    ("GB", "Guy's and St Thomas' NHS Foundation Trust", ["Guy's and St Thomas'"]),
    ("GB", "Mid Devon District Council", ["Mid Devon Council"]),
    ("GB", "Tunbridge Wells Borough Council", ["Tunbridge Wells Council"]),
    ("GB", "London Borough of Hackney", ["Hackney Council"]),
    ("GB", "Royal Borough of Greenwich", ["Greenwich Council"]),
    # Australia
    ("AU", "Department of Health and Aged Care", ["DoHAC"]),
    ("AU", "Department of Foreign Affairs and Trade", ["DFAT"]),
    ("AU", "Department of Agriculture, Fisheries and Forestry", ["DAFF"]),
    ("AU", "Department of the Prime Minister and Cabinet", ["PM&C"]),
    ("AU", "Attorney-General's Department", ["AGD"]),
    ("AU", "Department of Veterans' Affairs", ["DVA"]),
    ("AU", "Department of Social Services", ["DSS"]),
    ("AU", "Bureau of Meteorology", ["BoM"]),
    ("AU", "Australian Electoral Commission", ["AEC"]),
    ("AU", "Geoscience Australia", ["Geoscience Australia"]),
    ("AU", "IP Australia", ["IP Australia"]),
    ("AU", "Australian Signals Directorate", ["ASD"]),
    ("AU", "Airservices Australia", ["Airservices"]),
    ("AU", "Defence Housing Australia", ["DHA"]),
    ("AU", "Department of Transport and Main Roads", ["TMR"]),
    ("AU", "Main Roads Western Australia", ["Main Roads WA"]),
    ("AU", "City of Parramatta", ["Parramatta Council"]),
    ("AU", "Blacktown City Council", ["Blacktown Council"]),
    ("AU", "City of Gold Coast", ["Gold Coast City Council"]),
    ("AU", "Northern Beaches Council", ["Northern Beaches Council"]),
    ("AU", "Wollondilly Shire Council", ["Wollondilly Shire"]),
    ("AU", "Sydney Trains", ["Sydney Trains"]),
    # Canada
    ("CA", "Innovation, Science and Economic Development Canada", ["ISED", "ISDE"]),
    ("CA", "Global Affairs Canada", ["GAC", "Affaires mondiales Canada"]),
    ("CA", "Immigration, Refugees and Citizenship Canada", ["IRCC"]),
    ("CA", "Natural Resources Canada", ["NRCan", "Ressources naturelles Canada"]),
    ("CA", "Agriculture and Agri-Food Canada", ["AAFC", "AAC"]),
    ("CA", "Canadian Food Inspection Agency", ["CFIA", "ACIA"]),
    ("CA", "Public Health Agency of Canada", ["PHAC", "ASPC"]),
    ("CA", "Veterans Affairs Canada", ["VAC", "Anciens Combattants Canada"]),
    ("CA", "National Research Council Canada", ["NRC", "CNRC"]),
    ("CA", "Canadian Coast Guard", ["CCG", "Garde côtière canadienne"]),
    ("CA", "Ontario Ministry of Transportation", ["MTO"]),
    ("CA", "Supply Ontario", ["Supply Ontario"]),
    ("CA", "Hydro One", ["Hydro One"]),
    ("CA", "Ontario Power Generation", ["OPG"]),
    ("CA", "City of Calgary", ["Calgary City Council"]),
    ("CA", "Halifax Regional Municipality", ["HRM"]),
    ("CA", "Regional Municipality of Peel", ["Region of Peel"]),
    ("CA", "Société de transport de Montréal", ["STM"]),
    ("CA", "TransLink", ["TransLink"]),
    ("CA", "Alberta Health Services", ["AHS"]),
    # European Union
    ("EU", "Directorate-General for Mobility and Transport", ["DG MOVE"]),
    ("EU", "Directorate-General for Energy", ["DG ENER"]),
    ("EU", "Directorate-General for Health and Food Safety", ["DG SANTE"]),
    (
        "EU",
        "Directorate-General for Communications Networks, Content and Technology",
        ["DG CNECT", "DG CONNECT"],
    ),
    ("EU", "Directorate-General for Human Resources and Security", ["DG HR"]),
    ("EU", "Office for Infrastructure and Logistics in Brussels", ["OIB"]),
    ("EU", "European Anti-Fraud Office", ["OLAF", "欧洲反欺诈办公室"]),
    ("EU", "European External Action Service", ["EEAS", "欧盟对外行动署", "歐盟對外行動署"]),
    ("EU", "European Economic and Social Committee", ["EESC"]),
    ("EU", "European Committee of the Regions", ["CoR"]),
    ("EU", "Court of Justice of the European Union", ["CJEU", "欧盟法院", "歐盟法院"]),
    (
        "EU",
        "European Union Agency for the Operational Management of Large-Scale IT Systems",
        ["eu-LISA"],
    ),
    ("EU", "European Union Intellectual Property Office", ["EUIPO"]),
    ("EU", "European Union Aviation Safety Agency", ["EASA"]),
    ("EU", "European Maritime Safety Agency", ["EMSA"]),
    ("EU", "European Centre for Disease Prevention and Control", ["ECDC"]),
    ("EU", "European Health and Digital Executive Agency", ["HaDEA"]),
    ("EU", "European Research Executive Agency", ["REA"]),
    ("EU", "Fusion for Energy", ["F4E"]),
    ("EU", "Eurojust", ["Eurojust"]),
]

# Bodies no list holds: councils, trusts and offices of small places, found only by the shape
# of their names (a place's proper name, then a word saying it is a body).
SHAPED = [
    "Wyre Forest District Council",
    "Babergh District Council",
    "Broxtowe Borough Council",
    "Ceredigion County Council",
    "Shire of Augusta-Margaret River",
    "Ku-ring-gai Council",
    "Town of Cottesloe",
    "City of Wanneroo",
    "Municipality of Chatham-Kent",
    "Township of Langley",
    "Ville de Gatineau",
    "Kirklees Council",
    "Rother District Council",
    "Moreton Bay Regional Council",
    "Strathfield Municipal Council",
    "Whanganui District Council",
    "Ashfield District Council",
    "Sembawang Town Council",
    "Aljunied-Hougang Town Council",
    "Yau Tsim Mong District Council",
    "Northumbria Healthcare NHS Foundation Trust",
    "Department of Veterans' Affairs",
    "Ministry of Fisheries and Oceans",
    "Office of the Privacy Commissioner",
]
SHAPED_ZH = [
    "荃灣區議會",
    "元朗區議會",
    "黃大仙區議會",
    "离岛区议会",
    "澳門治安警察局",
]

# Amounts a summary should never give.
MONEY = [
    "HK$2,450,000", "HKD2.45m", "HK$ 2.45 million", "2.45 million HKD", "HKD 2,450k",
    "S$800,000", "SGD 0.8m", "SG$800k", "800 thousand Singapore dollars", "S$ 0.8 mil",
    "MOP 1.5 million", "MOP$1,500,000", "1.5 million patacas", "patacas 1.5m",
    "A$3.2M", "AUD 3.2 million", "AU$3,200,000", "3.2 million Australian dollars",
    "C$4.1m", "CAD$4,100,000", "CDN$ 4.1 million", "4.1 million Canadian dollars",
    "£650,000", "GBP 0.65m", "£0.65bn", "650k GBP", "£650 thousand", "1.2 million pounds",
    "€450.000", "EUR 450,000", "€ 0.45 million", "450.000 EUR", "EUR 1,2 Mio.", "2,5 M€",
    "US$ 3 million", "USD 3,000,000", "$3m", "$2.45 million", "$750,000", "$750K",
    "RMB 5 million", "¥5,000,000", "NZ$1.2m",
    "two point four five million dollars", "three hundred and fifty thousand pounds",
    "one and a half million euros", "forty-five thousand dollars", "twelve million HKD",
    "two million Singapore dollars", "Half a million pounds",
]  # fmt: skip
MONEY_ZH = [
    "245萬港元", "港幣245萬元", "約港幣二百四十五萬元", "澳門幣1,500,000元", "澳門元一百五十萬",
    "新幣80萬", "新加坡元八十萬", "二百四十五萬港元", "1.2億元", "一點二億港元",
    "人民幣50萬元", "250萬元", "合約金額為港幣2,450,000元", "120萬英鎊", "歐元45萬",
    "45萬歐元", "澳幣300萬", "加幣300萬", "壹佰貳拾萬元", "港幣貳佰萬元", "HK$245萬",
    "預算約250萬", "價值約三百萬元", "總額達四百五十萬",
]  # fmt: skip
MONEY_EN = [
    "Estimated contract value {x}.",
    "The budget is {x} over three years.",
    "Indicative spend of {x} across all lots.",
    "{x} has been set aside for this work.",
    "Price ceiling: {x}.",
    "Up to {x} available for phase one.",
    "Expected to cost about {x}, excluding tax.",
]
MONEY_ZH_T = ["預計合約價值{x}。", "本項目{x}，為期三年。", "撥款{x}用於第一期。", "上限為{x}。"]

# Dates (the record's deadline is 17 December 2026) and other exact dates.
DATES = [
    "17th Dec", "Dec 17th", "17-Dec-2026", "17-Dec-26", "17 Dec. 2026", "Thursday, 17 December",
    "Thu 17 Dec", "17.12.2026", "17/12/2026", "2026-12-17", "12/17/2026", "17/12/26",
    "2026/12/17", "20261217", "17 décembre 2026", "17 de Dezembro de 2026",
    "seventeenth of December", "December the seventeenth", "5 Jan", "January 5th", "5th January",
    "Sept. 30", "30 Sept 2026", "2026-12-17T12:00",
]  # fmt: skip
DATE_CUED = [
    "bids close Thursday 17th", "site visit Thu, 3rd at 10am",
    "closes 17/12", "due 17/12", "bids due by 17.12", "return by Thu 17/12", "deadline: 17-12",
    "responses by noon on 17/12", "no later than 12pm, 17/12", "closing date 17/12",
    "submissions close Friday 17/12", "tenders must be lodged by 17/12", "offers by 17.12.",
    "clarifications until 10/12", "site visit on 3/12", "open until 17/12",
]  # fmt: skip
DATES_ZH = [
    "12月17日", "十二月十七日", "2026年12月17日", "12月17號", "十二月十七號", "截標日期為12月17日",
    "截止日期：17/12", "於12/17前", "二〇二六年十二月十七日", "2026.12.17", "12.17截止",
    "週四（12月17日）", "截標：17-12", "12月17日中午12時前",
]  # fmt: skip
DATE_EN = [
    "Tender box {x}.",
    "Please note: {x}.",
    "Key date {x} for all bidders.",
    "Award expected shortly after {x}.",
]
DATE_ZH_T = ["請注意：{x}。", "重要日期{x}，所有投標者適用。", "預計於{x}後批出合約。"]

REFERENCES = [
    "RFT 2026-117", "ITT/2026/045", "Contract No: 45/2026", "Ref 2026-0045", "ref# 4471",
    "Tender #4471", "EOI 22-2026", "tender reference 4471", "our reference HY/2026/05",
    "Quotation Ref. Q-4471", "Project ID 77810", "Solicitation No. W8486-26-0017",
    "bid number 4471-26", "requisition 1000123456", "PO 4500123456", "Opportunity ID 88123",
    "RFQ#0192", "RFP No 17-2026", "Tender 26/117", "file ref 12/345/2026", "Contract C-4471",
    "notice 2026/S 123-456789", "RFx 300045", "ITQ 2026-08", "Job no. 55120",
]  # fmt: skip
REFERENCES_ZH = [
    "招標編號：124/2026", "合約編號 HY/2026/05", "標書編號45/2026", "項目編號：2026-117",
    "採購編號 PR2026-0045", "報價編號 Q4471", "第45/2026號招標", "投標編號：4471",
    "參考編號 4471", "檔案編號：GLD/T/26/05",
]  # fmt: skip
REF_EN = ["Quote {x} on all replies.", "This replaces {x}.", "See {x} for the schedule."]
REF_ZH_T = ["回覆時請註明{x}。", "本公告取代{x}。"]

CONTACTS = [
    "tenders [at] gld [dot] gov [dot] hk", "tenders AT gld DOT gov DOT hk", "tenders(at)gld.gov.hk",
    "tenders @ gld . gov . hk", "tenders at gld.gov.hk", "tenders<at>gld.gov.hk",
    "procurement{at}council.gov.uk", "bids at council dot gov dot uk", "gld (dot) gov (dot) hk",
    "gld[.]gov[.]hk", "www dot gld dot gov dot hk", "GLD.GOV.HK", "tenders.nsw.gov.au",
    "hxxps://www.gld.gov.hk/tenders", "https://etendering.example.org/notice/4471",
    "www.council.gov.uk/tenders", "jane.doe at leeds dot gov dot uk",
    "+852 2867 1234", "(852) 2867 1234", "852-2867-1234", "2867-1234", "+65 6123 4567",
    "6123-4567", "+44 20 7946 0958", "020 7946 0958", "0113 496 0000", "(02) 9876 5432",
    "02 9876 5432", "1300 123 456", "+1-613-555-0142", "613 555 0142", "+853 2856 1234",
    "2856 1234", "tel. 2867 1234", "WhatsApp +852 9123 4567", "28 67 12 34",
    "1300 GO TENDER", "0800 TENDERS",
]  # fmt: skip
CONTACTS_ZH = [
    "電郵：tenders＠gld．gov．hk", "致電 2867 1234", "查詢電話：+852 2867 1234", "傳真 2869 0000",
    "電話（852）2867 1234", "網址 www.gld.gov.hk", "澳門電話 2856 1234",
]  # fmt: skip
CONTACT_EN = ["For enquiries: {x}.", "Documents from {x}.", "Reach the team via {x}."]
CONTACT_ZH_T = ["如有查詢：{x}。", "文件索取：{x}。"]

SOURCES = [
    "Find a Tender", "FTS", "Contracts Finder", "Sell2Wales", "eTendersNI", "Public Contracts Scotland",
    "Tenders Electronic Daily", "TED", "the Official Journal of the European Union",
    "GeBIZ", "AusTender", "buy.nsw", "NSW eTendering", "Tenders VIC", "QTenders", "Tenders WA",
    "SA Tenders", "Tenders.gov.au", "CanadaBuys", "MERX", "BC Bid", "SEAO", "Biddingo", "Bonfire",
    "e-Tender Box", "電子投標箱", "Delta eSourcing", "ProContract", "In-Tend", "Proactis",
    "Boletim Oficial", "澳門特別行政區公報", "政府憲報", "Government Gazette",
]  # fmt: skip
SOURCE_EN = ["Published on {x} last week.", "Full notice on {x}.", "Copied from {x}."]

# Contact people: (name as written in a summary, how the private notice gives it).
PEOPLE = [
    ("Liam O'Connor", "Contact: Liam O'Connor, Procurement Officer"),
    ("Chloe Nguyen", "Enquiries to Chloe Nguyen on 2123 4567"),
    ("Aiden Walsh", "Point of contact - Aiden Walsh"),
    ("Harpreet Singh", "Name of contact: Harpreet Singh"),
    ("Nur Aisyah", "Contact person: Nur Aisyah"),
    ("Tan Wei Ming", "Contact: Tan Wei Ming"),
    ("Chan Tai-man", "Contact: Chan Tai-man (Supplies)"),
    ("Lee Ka Wai", "Contact officer: Lee Ka Wai"),
    ("Jean-Pierre Tremblay", "Contact: Jean-Pierre Tremblay"),
    ("Marie-Claude Gagnon", "Attention: Marie-Claude Gagnon"),
    ("Siobhan Kelly", "Contact: Siobhan Kelly"),
    ("Declan Murphy", "Enquiries: Declan Murphy"),
    ("Olivia Brown", "Contact Olivia Brown for a site visit"),
    ("Noah Wilson", "Responsible officer: Noah Wilson"),
    ("Wong Siu Fung", "Contact: Wong Siu Fung"),
    ("Ho Chi Keung", "Enquiries: Ho Chi Keung"),
    ("Jessica Lim", "Contact: Jessica Lim"),
    ("Ahmad Faizal", "Contact: Ahmad Faizal"),
    ("Sarah O'Neill", "Contact: Sarah O'Neill"),
    ("Kevin Leung", "Contact: Kevin Leung"),
]
PEOPLE_EN = [
    "Questions go to {x}.",
    "{x} will answer clarifications.",
    "Speak with {x} to book a site visit.",
    "For queries: {x}",
    "Site visit hosted by {x} of the estates team.",
]
PEOPLE_ZH = [
    ("陳大明", "聯絡人：陳大明"),
    ("黃美玲", "联系人：黄美玲"),
    ("張志偉", "聯絡人：張志偉（電話 2123 4567）"),
    ("林嘉欣", "負責人：林嘉欣"),
    ("梁家輝", "聯絡人：梁家輝"),
    ("劉德明", "經辦人：劉德明"),
]
# Without the notice giving them: after a contact word, starting with a family name.
PEOPLE_ZH_BARE = ["請聯繫黃美玲。", "如有疑問，請致電陳大明。", "可洽詢林嘉欣。"]
PEOPLE_ZH_T = ["請聯絡{x}。", "{x}負責解答查詢。", "實地視察由{x}安排。", "如有疑問可致電{x}先生。"]


def _zh(template: str, secret: str, lang: str) -> str:
    text = template.format(x="\0")
    if lang == "zh":
        text = to_simplified(text)
    return text.replace("\0", secret)


# Where an abbreviation that is also an ordinary term stands as a name (elsewhere "SB", "CPS",
# "STM" are terms, and the gate lets them be).
AS_NAME_EN = [
    "Open tender issued by the {x}. Supply of patient monitors.",
    "The {x} invites tenders for linen services.",
    "Cleaning of the {x}'s depots and offices.",
]


def planted_b() -> list[Planted]:
    items: list[Planted] = []
    add = items.append
    n = 0
    for market, main, others in BODIES:
        for other in others:
            cjk = any("\u4e00" <= c <= "\u9fff" for c in other)
            if cjk and len(other) < 3:
                continue  # two-character short forms (港大, 中大) are ordinary words too often
            for k in range(2):
                n += 1
                if not cjk and abbreviation_rule(other) == "weak" and " " not in other:
                    text = AS_NAME_EN[n % len(AS_NAME_EN)].format(x=other)
                    add(Planted("body_name", other, "en", text, buyer_name=main, market=market))
                    continue
                if cjk:
                    lang = "zht" if to_simplified(other) != other and k == 0 else "zh"
                    secret = other if lang == "zht" else to_simplified(other)
                    text = _zh(NAME_ZH[n % len(NAME_ZH)], secret, lang)
                else:
                    secret = other
                    text = NAME_EN[n % len(NAME_EN)].format(x=other)
                    lang = "en"
                add(Planted("body_name", secret, lang, text, buyer_name=main, market=market))
        # The main name itself, for a record whose buyer field holds the publisher.
        n += 1
        add(
            Planted(
                "body_name",
                main,
                "en",
                NAME_EN[n % len(NAME_EN)].format(x=main),
                buyer_name="Spend Network",
                market=market,
            )
        )
    for i, name in enumerate(SHAPED):
        for k in range(3):
            add(Planted("shaped_body", name, "en", NAME_EN[(i + k) % len(NAME_EN)].format(x=name)))
    for i, name in enumerate(SHAPED_ZH):
        for k in range(2):
            lang = "zht" if k == 0 else "zh"
            secret = name if lang == "zht" else to_simplified(name)
            add(
                Planted(
                    "shaped_body", secret, lang, _zh(NAME_ZH[(i + k) % len(NAME_ZH)], secret, lang)
                )
            )
    for i, amount in enumerate(MONEY):
        for k in range(3):
            add(Planted("money", amount, "en", MONEY_EN[(i + k) % len(MONEY_EN)].format(x=amount)))
    for i, amount in enumerate(MONEY_ZH):
        for k, lang in enumerate(("zht", "zh")):
            secret = amount if lang == "zht" else to_simplified(amount)
            add(
                Planted(
                    "money", secret, lang, _zh(MONEY_ZH_T[(i + k) % len(MONEY_ZH_T)], secret, lang)
                )
            )
    for i, date in enumerate(DATES):
        for k in range(3):
            add(Planted("date", date, "en", DATE_EN[(i + k) % len(DATE_EN)].format(x=date)))
    for i, date in enumerate(DATE_CUED):
        for k in range(3):
            text = DATE_EN[(i + k) % len(DATE_EN)].format(x=date)
            add(Planted("date", date, "en", text[0].upper() + text[1:]))
    for i, date in enumerate(DATES_ZH):
        for k, lang in enumerate(("zht", "zh")):
            secret = date if lang == "zht" else to_simplified(date)
            add(
                Planted(
                    "date", secret, lang, _zh(DATE_ZH_T[(i + k) % len(DATE_ZH_T)], secret, lang)
                )
            )
    for i, ref in enumerate(REFERENCES):
        for k in range(3):
            add(Planted("reference", ref, "en", REF_EN[(i + k) % len(REF_EN)].format(x=ref)))
    for i, ref in enumerate(REFERENCES_ZH):
        for k, lang in enumerate(("zht", "zh")):
            secret = ref if lang == "zht" else to_simplified(ref)
            add(
                Planted(
                    "reference", secret, lang, _zh(REF_ZH_T[(i + k) % len(REF_ZH_T)], secret, lang)
                )
            )
    for i, contact in enumerate(CONTACTS):
        for k in range(3):
            text = CONTACT_EN[(i + k) % len(CONTACT_EN)].format(x=contact)
            add(Planted("contact", contact, "en", text))
    for i, contact in enumerate(CONTACTS_ZH):
        for k, lang in enumerate(("zht", "zh")):
            secret = contact if lang == "zht" else to_simplified(contact)
            add(
                Planted(
                    "contact",
                    secret,
                    lang,
                    _zh(CONTACT_ZH_T[(i + k) % len(CONTACT_ZH_T)], secret, lang),
                )
            )
    for i, source in enumerate(SOURCES):
        for k in range(3):
            add(
                Planted(
                    "source", source, "en", SOURCE_EN[(i + k) % len(SOURCE_EN)].format(x=source)
                )
            )
    for i, (name, description) in enumerate(PEOPLE):
        for k in range(len(PEOPLE_EN)):
            text = PEOPLE_EN[(i + k) % len(PEOPLE_EN)].format(x=name)
            add(Planted("contact_name", name, "en", text, description=description))
            # The same name in a summary of a record whose notice does not give it.
            if k == 0:
                add(Planted("bare_name", name, "en", text))
    for text in PEOPLE_ZH_BARE:
        secret = text[-4:-1]
        for lang in ("zht", "zh"):
            secret_l = secret if lang == "zht" else to_simplified(secret)
            text_l = text if lang == "zht" else to_simplified(text)
            add(Planted("bare_name", secret_l, lang, text_l))
    for i, (name, description) in enumerate(PEOPLE_ZH):
        for k, lang in enumerate(("zht", "zh", "zht", "zh")):
            secret = name if lang == "zht" else to_simplified(name)
            text = _zh(PEOPLE_ZH_T[(i + k) % len(PEOPLE_ZH_T)], secret, lang)
            add(Planted("contact_name", secret, lang, text, description=description))
    return items


# --- clean text: must all publish ----------------------------------------------------------

CLEAN_EN = [
    "Supply and installation of {t} for a public hospital, including five years of maintenance.",
    "Framework for {t}; suppliers must hold relevant certification.",
    "Replacement of {t} at a water treatment works, with commissioning and training.",
    "Term contract for {t} across several office buildings.",
    "Design and build of {t}, delivered in two phases.",
]
TECH_EN = [
    "ISO 27001 certified hosting", "IEC 61850 substation controllers", "BS 7671 electrical testing",
    "EN 1176 playground equipment", "AS/NZS 3000 wiring", "CSA C22.2 compliant panels",
    "NFPA 13 sprinklers", "IP67 junction boxes", "Cat 6A patch panels", "400 kVA generators",
    "3-phase 415V switchboards", "DN300 ductile iron pipes", "PN25 valves", "M16 anchor bolts",
    "Wi-Fi 6E access points", "802.1X network access control", "TLS 1.3 load balancers",
    "Windows 11 laptops", "Office 365 licences", "SQL Server 2022 upgrade", "Python 3.12 services",
    "Kubernetes 1.30 clusters", "IPv6 routing", "100GbE core switches", "4K 55-inch displays",
    "1080p CCTV cameras", "HDMI 2.1 cables", "USB 3.2 hubs", "A3 colour printers",
    "A4 80gsm paper", "R-290 chillers", "R1234ze heat pumps", "SEER 6.1 split units",
    "EV chargers rated 22 kW", "Type 2 charging cables", "Euro VI buses", "Class 8 trucks",
    "LiFePO4 batteries", "12V 100Ah batteries", "LED panels 600x600", "T5 fluorescent tubes",
    "C40 concrete", "Grade 500E rebar", "S355 steel sections", "HDPE PE100 pipes", "SDR11 fittings",
    "N95 respirators", "Nitrile gloves size M", "PPE to EN 166", "Level 3 body armour",
    "ECG monitors with SpO2", "MRI 3T scanner", "CT 128-slice scanner", "HbA1c analysers",
    "Certificate Authority services", "a Raspberry Pi board", "a distribution board upgrade",
    "the Project Board's reporting pack", "a Service Desk", "a Data Centre migration",
    "ArcGIS Enterprise 11.1", "SAP S/4HANA", "Oracle 19c", "Red Hat Enterprise Linux 9",
    "Cisco Catalyst 9300 switches", "Dell PowerEdge R760 servers", "HPE ProLiant DL380 Gen11",
    "Microsoft Teams Rooms", "Zoom Rooms", "Adobe Acrobat Pro", "AutoCAD 2025 licences",
    "Revit 2025", "Primavera P6", "SharePoint Online", "Power BI Pro", "Tableau 2024.1",
    "2 x 10 tonne cranes", "a 35 m aerial platform", "50 000 litre tanks", "1.5 million sheets",
    "3 million page impressions", "500 000 visitors a year", "24/7 monitoring", "99.9% uptime",
    "a 15-year design life", "Stage 2 design", "RIBA Stage 4", "Phase 2 works", "Lot 3",
    "Schedule 2 pricing", "Section 4.2 of the specification", "Item 12 of the bill of quantities",
    "Annex B forms", "Part 1 and Part 2 responses", "the 2025-2026 programme",
    "the FY2026 budget cycle", "Q1 2027 go-live", "Windows Server 2022", "PostgreSQL 16",
    "Mary Rose museum exhibits", "Victoria Park lighting", "Queen's Road resurfacing",
    "Nathan Road signage", "King George V Park", "Prince Edward station",
    "paper from FSC (Forest Stewardship Council) sources", "MSC (Marine Stewardship Council) fish",
    "Certificate Authority services", "an Arts Council grant scheme", "Tai Po Market works",
    "road works near Ma On Shan and Wong Tai Sin", "depots at Lai Chi Kok and Cheung Sha Wan",
    "signage for Victoria Park and Jordan Road", "a Green Building Council rating tool",
    "Ho Man Tin station lifts", "Kwun Tong Road resurfacing", "Sha Tin and Tuen Mun depots",
    "a service desk open Monday to Friday 9 to 5", "cover on Saturday 8am to 1pm",
    "weekend shifts of Sat 12 hours", "Sunday 4 sessions of training",
]  # fmt: skip
CLEAN_ZH = [
    "為公立醫院供應及安裝{t}，包括五年保養。",
    "{t}框架協議，供應商須持有相關認證。",
    "更換濾水廠的{t}，包括調試及培訓。",
    "多幢辦公大樓的{t}定期合約。",
    "{t}的設計及建造，分兩期進行。",
]
TECH_ZH = [
    "ISO 27001認證寄存服務", "IEC 61850變電站控制器", "IP67接線盒", "400千伏安發電機",
    "DN300球墨鑄鐵管", "Wi-Fi 6E無線接入點", "Windows 11手提電腦", "100GbE核心交換機",
    "4K 55吋顯示屏", "1080p閉路電視攝影機", "A3彩色打印機", "A4 80克紙張", "R-290冷水機",
    "22千瓦電動車充電器", "歐盟六期巴士", "磷酸鐵鋰電池", "C40混凝土", "S355鋼材",
    "N95口罩", "3T磁力共振掃描器", "系統部署及數據處理", "網絡布局設計", "局域網佈線",
    "簽署保密協議後提供的圖則", "24小時監察", "99.9%可用率", "第2期工程", "第3標段",
    "附件B表格", "2025至2026年度計劃", "500 000公升水缸", "150萬張紙", "女士制服及男士制服",
    "先生牌清潔劑", "評審委員會的報告", "管理處的保安系統", "採購部的辦公室家具",
    "SAP S/4HANA系統", "Oracle 19c資料庫", "AutoCAD 2025授權", "每年50萬名訪客",
    "公共圖書館清潔服務", "系統部署及網絡布局", "中大型設備", "科技大學實驗室設備", "兒童醫院病床",
]  # fmt: skip
PLAIN_EN = [
    "Cleaning services for office buildings, including consumables and waste removal.",
    "Supply of school furniture for classrooms and libraries, with delivery and assembly.",
    "Grounds maintenance for parks and open spaces, including tree surgery.",
    "Catering services for staff canteens, with healthy menu options.",
    "Security guarding for a public building, with mobile patrols at night.",
    "Legal advisory services for a major infrastructure programme.",
    "Printing and distribution of public information leaflets.",
    "Translation and interpretation services in several languages.",
]
PLAIN_ZH = [
    "辦公大樓清潔服務，包括消耗品及廢物處理。",
    "學校家具供應，包括送貨及安裝。",
    "公園及休憩用地的園藝保養，包括樹木護理。",
    "員工餐廳膳食服務，提供健康餐單。",
    "公共建築物保安服務，夜間設流動巡邏。",
]


def clean_b(seed: int = 27) -> list[tuple[str, str, bool]]:
    """Clean summaries as (lang, text, technical): every technical phrase in English and
    Chinese sentences, and the plain sentences in every language."""
    rng = random.Random(seed)
    corpus = []
    for i, tech in enumerate(TECH_EN):
        for k in range(2):
            corpus.append(("en", CLEAN_EN[(i + k) % len(CLEAN_EN)].format(t=tech), True))
    for i, tech in enumerate(TECH_ZH):
        for lang in ("zht", "zh"):
            text = CLEAN_ZH[(i + rng.randrange(5)) % len(CLEAN_ZH)].format(t=tech)
            corpus.append((lang, text if lang == "zht" else to_simplified(text), True))
    for text in PLAIN_EN:
        corpus.append(("en", text, False))
    for text in PLAIN_ZH:
        corpus.append(("zht", to_traditional(text), False))
        corpus.append(("zh", to_simplified(text), False))
    return corpus
