"""Word lists the gate's rules read: what is ordinary, so that what is not can stand out.

Plain data, no logic. Each list says why it exists; keep them short and general (a list that
names one test's example is a bug, not a rule).
"""


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Acronyms that are ordinary words or everyday procurement and technical terms. A body whose
# abbreviation is one of these (HA, HD, CAD, EPD, GPA, HP, PA...) is only named by it where it
# stands as a name ("issued by the HA."), never in "HD cameras" or "CAD drawings".
COMMON_ACRONYMS = word_set(
    "AN AS AT BE BY DO GO HE IF IN IS IT ME MY NO OF ON OR SO TO UP US WE AM PM OK THE AND "
    "FOR ALL ANY CAN NEW NOT OUR USE ONE TWO KEY MAY WAY WAS HAS ARE OUT NOW ITS HOW WHO WHY "
    "CO LTD INC PLC COM NET ORG GOV DOT ICT CT MRI PET TV PC AV HR PR QA QC AI EV GP ID IP UK "
    "EU USA HK SG AU CA MO NSW SME PPE CCTV HVAC LED GPS GIS ERP CRM SLA KPI VAT GST NHS DG "
    "UN ATM API UPS LAN WAN VPN PDF BIM MEP EPC PPP PFI OJEU CPV RFT RFQ RFP RFI ITT EOI PQQ "
    "IOT LNG CNG ICU ED ER OT HA HD CAD EPD GPA HP PA PUB MOM SPF MD TD LD BD CAM SD UV IR "
    "DC AC PV BMS FM IoT SIM USB HDMI SSD HDD RAM CPU GPU DNS SQL ETL SAP UAT SIT DR BCP "
    "OHS EHS ESG CSR LCA EPS XPS PVC HDPE UPVC GRP FRP LPG CHP AHU FCU VAV VRF VRV PLC SCADA "
    "DCS RTU PAS CE CB RCD MCB SPD TRV CAT POS BI NAS SAN ISP SOC SIEM MFA SSO IAM EDR XDR "
    "WMS TMS HMI RFID NFC QR OCR BPO PMO PM WBS RAMS CDM MOT GVW HGV LGV PSV EMS AED ECG CT "
    "ENT OPD RO UF MBR DAF STP WTP CIP SOP GMP GLP GDP ICP MS LC HPLC GC NMR PCR ELISA EIA "
    "FEED EPCM DBO DBFO BOT O&M SaaS PaaS IaaS EEA ABS PSD CCS AMS CAS DPO IAS DST GRC IAM "
    "EEA ISO ERP"
)

# Honorific words after which a capitalised word is not a person ("Dr Martens boots").
BRAND_PERSONS = frozenset(
    {"Dr Martens", "Dr. Martens", "Dr Oetker", "Dr. Oetker", "Dr Pepper", "Dr. Pepper"}
    | {"Mr Muscle", "Mr Clean", "Mr Sheen", "Mrs Baird"}
)

# Domains that are products, not contacts: a summary may say a tool is used.
BRAND_DOMAINS = word_set(
    "monday.com draw.io booking.com salesforce.com socket.io asana.com trello.com "
    "wix.com squarespace.com wordpress.com wordpress.org openstreetmap.org"
)

# Common English given names and common family names (Anglo, Chinese, Malay, Indian
# romanisations): "Peter Tan" or "Mary Wong" is a person even without "Mr" or an e-mail.
# A name is only read as a person when both parts are known, capitalised, side by side.
GIVEN_NAMES = word_set(
    "Aaron Adam Adrian Agnes Alan Albert Alex Alexander Alice Alison Amanda Amy Andrew Angela "
    "Anita Ann Anna Anne Anthony Arthur Barbara Ben Benjamin Betty Bill Brenda Brian Bruce "
    "Carl Carol Caroline Catherine Charles Charlotte Chris Christina Christine Christopher "
    "Claire Daniel Daphne David Deborah Dennis Derek Diana Donald Dorothy Douglas Edmund "
    "Edwin Eileen Elaine Eleanor Emily Emma Eric Esther Eugene Fiona Frances Francis Frank "
    "Gary Gavin George Gerald Gloria Gordon Grace Graham Gregory Harold Harry Helen Henry "
    "Howard Ian Irene Ivan Jack James Jane Janet Jason Jean Jeffrey Jennifer Jenny Jeremy "
    "Jessica Joan Joanne John Jonathan Joseph Joyce Judith Julia Julian Justin Karen Kate "
    "Katherine Keith Kelvin Kenneth Kevin Kim Kirsty Laura Lawrence Lily Linda Lisa Louis "
    "Louise Lucy Margaret Maria Marie Mark Martin Mary Matthew Melissa Michael Michelle "
    "Nancy Natalie Neil Nicholas Nicola Nigel Oliver Pamela Patricia Patrick Paul Pauline "
    "Peter Philip Rachel Raymond Rebecca Richard Robert Roger Ronald Rose Ruth Ryan Sally "
    "Samantha Samuel Sandra Sarah Scott Sharon Simon Sophie Stanley Stephanie Stephen Steven "
    "Stuart Susan Teresa Terence Thomas Timothy Tony Tracy Valerie Vincent Wendy William "
    "Winnie Yvonne Ahmad Muhammad Nurul Siti Rajesh Priya Arjun Ravi Wei Ming Hui Li Jun"
)
FAMILY_NAMES = word_set(
    "Smith Jones Williams Taylor Brown Davies Evans Wilson Thomas Johnson Roberts Robinson "
    "Thompson Wright Walker White Edwards Hughes Green Hall Lewis Harris Clarke Patel Jackson "
    "Wood Turner Martin Cooper Hill Ward Morris Moore Clark Lee King Baker Harrison Morgan "
    "Allen James Scott Phillips Watson Davis Parker Price Bennett Young Griffiths Mitchell "
    "Kelly Cook Carter Richardson Bailey Collins Bell Shaw Murphy Miller Cox Richards Khan "
    "Marshall Anderson Simpson Ellis Adams Singh Begum Wilkinson Foster Chapman Powell Webb "
    "Rogers Gray Mason Ali Hunt Hussain Campbell Matthews Owen Palmer Holmes Mills Barnes "
    "Knight Lloyd Butler Russell Barker Fisher Stevens Jenkins Murray Dixon Harvey Graham "
    "Tremblay Gagnon Roy Cote Bouchard Gauthier Morin Lavoie Fortin Gagne Ouellet Pelletier "
    "Nguyen Tran Pham Chan Cheung Chen Cheng Cheong Chow Chu Chua Chung Fong Fung Ho Hui Ip "
    "Kwan Kwok Lai Lam Lau Law Leong Leung Li Liang Lim Lin Liu Lo Loh Low Lui Ma Mak Ng Ong "
    "Pang Poon Seah Sim Siu Soh Sun Tai Tam Tan Tang Teo Tay Toh Tsang Tse Tsui Wan Wang "
    "Wong Woo Wu Yan Yang Yap Yeo Yeung Yip Yiu Yu Yuen Zhang Zhao Zhou Koh Goh Chia Chong "
    "Kumar Sharma Rahman Ahmad Ibrahim Ismail Hassan Abdullah Pillai Nair Menon"
)

# Common Chinese family names: 陈先生 is a person, 女士制服 (ladies' uniforms) is not.
CHINESE_FAMILY_NAMES = (
    "陈陳李张張黄黃王刘劉林吴吳何郭梁罗羅郑鄭谢謝杨楊周朱胡徐高马馬冯馮邓鄧曾彭叶葉蔡潘"
    "余袁许許苏蘇卢盧蒋蔣韩韓唐董梅钟鍾邱丘邹鄒麦麥江汤湯程伍关關温溫方傅黎欧歐区區邝鄺"
    "侯孙孫赵趙钱錢魏廖姚谭譚顾顧毛石龚龔陆陸文范戴施甘容翁孔尹霍严嚴"
)

# Words that make up names of bodies and ordinary procurement text. A directory name built only
# of these ("Housing Authority", "Department of Health") is a name only where it is written as
# one (capitalised); a name with a word outside them ("Olympic Park Authority") is distinctive.
ORDINARY_WORDS = word_set(
    "the of and for in on at to by with de des du la le et y & a an "
    "department dept ministry bureau office agency authority board commission council "
    "corporation corp trust fund institute institution service services unit division "
    "section branch team group centre center directorate secretariat administration "
    "government govt public national federal state regional provincial municipal city "
    "county district borough shire town village metropolitan local central general "
    "royal crown executive special administrative region sar hksar "
    "health hospital hospitals medical care social welfare housing land lands transport "
    "transportation road roads highways highway water waters drainage environment "
    "environmental protection education school schools university college library "
    "libraries police fire customs excise immigration justice defence defense home "
    "affairs foreign finance financial treasury trade industry commerce economic labour "
    "labor employment development planning works building buildings estate estates "
    "property properties procurement supply supplies logistics information technology "
    "digital data communications postal post marine airport aviation civil rail railway "
    "railways port ports energy electricity power gas food agriculture fisheries "
    "conservation parks park leisure cultural culture sports sport arts heritage museum "
    "museums tourism statistics census audit revenue tax taxation security safety "
    "emergency defence force forces army navy correctional services prison legal "
    "legislative judiciary courts court tribunal registry registration licensing "
    "standards quality research science innovation investment monetary insurance "
    "pensions pension employees workers management facilities facility maintenance "
    "engineering architectural architecture construction infrastructure urban rural "
    "renewal green energy climate resources resource natural mines geology survey "
    "valuation rating sewage waste cleansing hygiene cleaning support operations "
    "corporate strategic strategy policy programme program programmes projects project "
    "network networks systems system solutions contracts contract tenders tender "
    "hong kong macao macau singapore united kingdom england scotland wales ireland "
    "northern european union europe australia australian canada canadian new south "
    "queensland victoria china chinese english svcs dept govt corp univ st co ltd inc"
)

# Portals, sources and their parts: a finding on "NSW eTendering" names the source, while
# "e-tendering" in prose is ordinary. (The portals themselves are in the directory seed.)

# Attributive senses of common acronyms: words near an acronym that show it is the ordinary
# term, not a body ("laptops by HP" is the brand; "covered by the WTO GPA" is the agreement).
ORDINARY_SENSES: dict[str, frozenset[str]] = {
    "HP": word_set(
        "laptop laptops printer printers laserjet notebook notebooks elitebook "
        "probook toner ink cartridge cartridges desktop desktops proliant aruba "
        "dell lenovo compaq workstation workstations"
    ),
    "GPA": word_set("wto agreement covered plurilateral"),
    "CAD": word_set(
        "software drawing drawings model models modelling modeling design "
        "autocad cam bim 2d 3d file files licence licences license licenses "
        "dollar dollars canadian"
    ),
    "HD": word_set(
        "video camera cameras display displays resolution screen screens tv "
        "monitor monitors cctv 1080p 720p 4k uhd"
    ),
    "HA": word_set(
        "cluster clusters availability failover redundant redundancy server "
        "servers firewall firewalls hectare hectares pair node nodes"
    ),
    "EPD": word_set(
        "environmental declaration declarations product products lca carbon "
        "iso 14025 en 15804 embodied"
    ),
    "PA": word_set(
        "system systems speaker speakers audio amplifier amplifiers microphone announcement sound"
    ),
    "CT": word_set("scanner scanners scan scans imaging radiology tomography"),
}

# Labels before a person's name, found with str.find in the lower-case text; the name after
# one is matched where the label ends.
CONTACT_LABELS = (
    "contact",
    "attention",
    "attn",
    "enquiries",
    "ask for",
    "speak to",
    "call",
    "email",
    "e-mail",
    "write to",
    "officer",
)
