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
    "EEA ISO ERP ITC CSA SP RP TP NP ONS CPS DSS MCA CAA HSE FCA GDS SLC DIO MDP ABC ABF ERA "
    "EBA ETF EIT SRB ELA FRA LAC ISC AMC TBS APC NAC SDC PTC OIL REA EC SB HB CR GRS CSO IPCC "
    "KWH CMC MLM GIF TUI UTM MFT NSS BOM AEC ASD DHA TMR HRM NRC STM CCG OPG SAF CEA IMH SIT "
    "SMU EDB MTO"
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

# More given names (English-speaking markets, French Canada, Malay, Indian, Irish): a person
# is a known given name beside a word that can be a family name (see ``people``).
GIVEN_NAMES = GIVEN_NAMES | word_set(
    "Abigail Adrianna Aidan Aiden Ailsa Alana Alastair Alistair Amelia Andre Andrea Angus "
    "Annabel Annie Antoine Archie Ashley Audrey Ava Barry Beatrice Bernard Beth Bethany Brandon "
    "Brendan Bridget Caitlin Callum Cameron Carmen Cathal Cecilia Chantal Charlie Chloe Ciaran "
    "Claude Colin Connor Conor Craig Cynthia Damien Darren Declan Denise Dominic Donna Dylan "
    "Eamon Edward Eilidh Elena Eliza Elizabeth Ella Ellie Eloise Erin Ethan Evelyn Felix "
    "Fergus Finn Francois Francoise Freya Gemma Geoffrey Gillian Glenn Gwen Hamish Hannah "
    "Harvey Hazel Heather Heidi Holly Hugh Imogen Isaac Isabel Isabella Isla Jacob Jacqueline "
    "Jacques Jake Jamie Jasmine Jay Jeanette Jill Joel Johanna Jonah Jordan Josephine Joshua "
    "Josh Judy Julie Kathleen Katie Kayla Keira Kenny Kieran Kylie Lachlan Lara Leah Leo Leon "
    "Liam Lindsay Logan Lorraine Lorna Luc Lucas Luke Madeleine Madison Maeve Malcolm Marc "
    "Marcus Marion Martha Matilda Maureen Megan Mia Mikaela Miles Mohammed Mohamed Mohammad "
    "Molly Monique Morgan Nadia Naomi Nathan Nathalie Niall Nicole Noah Noel Norman Olivia "
    "Oscar Owen Patrice Philippe Phoebe Pierre Poppy Rebekah Rhys Riley Robyn Rory Ross Rosie "
    "Ruby Russell Sean Shane Shaun Sharon Sheila Sinead Siobhan Sofia Sophia Stella Sylvie "
    "Tara Theo Tiffany Toby Trevor Tristan Vanessa Veronica Vivian Warren Wayne Xavier Yolanda "
    "Zachary Zara Zoe Aisyah Aishah Aziz Azman Farah Faizal Farid Fatimah Hafiz Hakim Hamid "
    "Haziq Irfan Izzat Khairul Mohd Nabil Nadia Nur Nurul Rahim Rashid Rizal Roslan Syafiq Zainal "
    "Zulkifli Aarav Amit Anand Anil Deepak Divya Ganesh Harpreet Kavita Krishna Lakshmi Manoj "
    "Meena Neha Pooja Prakash Rahul Ramesh Sanjay Sunil Suresh Vijay Vikram Alvin Bryan Calvin "
    "Clement Desmond Edmond Elson Eunice Florence Gilbert Hector Herman Jacky Jeffery Kelvin "
    "Kenny Marcus Melvin Patsy Queenie Ricky Sammy Sherman Tommy Vivien Wilson Winston Yvette"
)
# Given names that are also ordinary words, places or brands: beside them, only a known family
# name makes a person ("Grace Kelly" yes, "Victoria Park", "Jordan Road", "Ruby Gems" no).
AMBIGUOUS_GIVEN = word_set(
    "Grace Rose Lily Mark Jack Frank Kim Jean Ming Hui Li Jun Wei Bill Will Ruby Jordan Florence "
    "Victoria Austin Ivy Joy Hope Faith May June April Dawn Crystal Jade Amber Iris Ross Miles "
    "Chase Sterling Heather Hazel Holly Stella Morgan Harvey Cameron Logan Russell Wilson Leo "
    "Nathan Owen Craig Glenn Warren Wayne Norman Gilbert Hector Herman Clement Herman Sherman "
    "Winston Lincoln Kent Chelsea Sydney Adelaide Darwin Victor Louis Albert George Edward "
    "Elizabeth Mary Anne Anna Charles Henry James John Patrick Peter Paul Philip Thomas "
    "William Oscar Felix Julian Isaac Jacob Noah Nadia Gemma Martha Patrice Carmen Sofia Queenie"
)
FAMILY_NAMES = FAMILY_NAMES | word_set(
    "Nguyen Walsh Kelly Murphy Byrne Ryan Doyle Kennedy Lynch Quinn Gallagher Sullivan Brennan "
    "Fitzgerald Flanagan Regan Doherty Duffy Reilly Nolan Keane Farrell Cunningham Hamilton "
    "Stewart Robertson Reid Ross Fraser Gordon Kerr Grant Wallace Sinclair Boyle Burns Dunn "
    "Gill Howard Lawson Lowe Nicholson Pearce Riley Sanders Saunders "
    "Spencer Tucker Wheeler Wong Aziz Hashim Osman Yusof Yusuf Othman Razak Salleh "
    "Gupta Reddy Rao Iyer Das Shah Mehta Joshi Verma Chopra Kaur Gill Grewal Sandhu Dhillon "
    "Brown Wilson Martin Tremblay Gagnon Lefebvre Leblanc Lapointe Girard Bergeron Caron "
    "Beaulieu Cloutier Poirier Fournier Dupont Lambert Moreau Simard Boucher Landry"
)
# Chinese family names as romanised, which may come first ("Lee Ka Wai", "Tan Wei Ming").
ROMANISED_FAMILY_NAMES = word_set(
    "Au Chan Chau Chen Cheng Cheong Cheuk Cheung Chia Chiu Choi Chong Chow Chu Chua Chung Fok "
    "Fong Fung Goh Ho Hui Hung Ip Kam Koh Kwan Kwok Kwong Lai Lam Lau Law Lee Leong Leung "
    "Li Liang Lim Lin Liu Lo Loh Low Lui Ma Mak Mok Ng Ong Pang Poon Seah Shek Sim Siu Soh Sun "
    "Sze Tam Tan Tang Tay Teo Toh Tong Tsang Tse Tsoi Tsui Wan Wang Wong Woo Wu Yan Yang Yap "
    "Yau Yeo Yeung Yip Yiu Yu Yuen Zhang Zhao Zhou"
)
# Syllables of romanised Chinese given names (Cantonese, Mandarin, Hokkien): a Chinese family
# name with two of them ("Lee Ka Wai", "Tan Wei Ming") or a hyphenated pair ("Chan Tai-man")
# is a person, written family name first. Place names of the same syllables ("Ma On Shan",
# "Wong Tai Sin") have one that is not a given name's.
GIVEN_SYLLABLES = word_set(
    "ah bing bo chak chee cheuk chi chih chin ching chiu choi chong chu chuen chun chung fai fan "
    "fat fei fen feng fook fu fung gek hang hao hei hin ho hoi hok hon hong hou hua huan hui "
    "hung jia jian jie jin jing jun ka kai kam kar kat kee keung kin king kit kwai kwan kwok "
    "kwong lai lam lan lap lei li lian lin ling lok lun man mei meng mi miao min ming mui nam "
    "ngai on pak pei peng ping po pui qi qian qiang qing ren rong sai san sen sha shan shek "
    "shing shu shun sik siu sum sun sze tai tak tat ting tsz tung wa wah wai wan wei wen wing "
    "wu xia xian xiao xin xing xiu xu ya yan yang yao yat yee yi yik yin ying yip yiu yong "
    "yu yuen yuk yun zhen zhi zhong zi"
)
# Syllables that are in place names far more than in given names: a run with one is a place.
PLACE_SYLLABLES = word_set("shan tin po wan kok tsui tong tei chau mun kau tau sin hang")

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
