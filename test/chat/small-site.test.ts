import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteChat, smallSite } from '../support/site-chat.ts';

// Four-page sites (test/fixtures/small-sites), crawled and asked as a visitor would: short questions in
// words the site does not use ("vegan *options*", "parking *nearby*"). Before the size-aware decline
// limit (docs/retrieval.md "Declining"), 10 of the restaurant's 10 answerable ones were declined.
const RESTAURANT: [string, string][] = [
  ['Do you have vegan options?', 'menu.html'],
  ['Is there gluten free pizza?', 'menu.html'],
  ['Can I book a table for tonight?', 'book.html'],
  ['how do I make a reservation', 'book.html'],
  ['Is there parking nearby?', 'visit.html'],
  ['Is it wheelchair accessible?', 'visit.html'],
  ['Can we have a birthday party there?', ''],
  ['Do you sell gift cards?', ''],
  ["I'm allergic to nuts, is that ok?", 'menu.html'],
  ['Where are you?', 'visit.html'],
];
const RESTAURANT_UNANSWERABLE = [
  'Do you have wifi?',
  'Do you serve sushi?',
  'Is there live music on Fridays?',
  'Do you have a dress code?',
  'Can I bring my dog?',
  'Do you have outdoor seating?',
];

const DENTAL: [string, string][] = [
  ['Are you accepting new patients?', 'patients.html'],
  ['Can my kids register with the NHS here?', 'patients.html'],
  ['How much is teeth whitening?', 'treatments.html'],
  ['What does a check-up cost?', 'treatments.html'],
  ['Do you do implants?', 'treatments.html'],
  ['Can I pay in instalments?', 'treatments.html'],
  ['I have a toothache, can I be seen today?', ''],
  ["I'm scared of the dentist", 'patients.html'],
  ['Are you open on Saturday?', 'contact.html'],
  ['Where is the practice?', 'contact.html'],
  ["What's your phone number?", 'contact.html'],
  ['How long is the first appointment?', 'patients.html'],
];
const DENTAL_UNANSWERABLE = [
  'Do you offer Invisalign braces?',
  "Is there a children's play area?",
  'Do you treat dogs?',
  'Can I get a flu jab here?',
  'Do you take Bupa insurance?',
  'Is there wheelchair access?',
];

// Written with its questions before any was asked; asked once: 7 of 13 from the right page. Four of the
// misses were a two-chunk home page outranking the one chunk that answered; with the second chunk's
// share of a page's score growing with the site's size, those four are answered and two the home page
// had won by its length are not: 9 of 13; with verbs of trade weighing half ("offer"), 10 of 13.
const YOGA: [string, string][] = [
  ['How much is one class?', 'prices.html'],
  ['Do you have a monthly membership?', 'prices.html'],
  ['Is there a student discount?', 'prices.html'],
  ['When are the evening classes?', 'timetable.html'],
  ['Do you have classes on Sunday morning?', 'timetable.html'],
  ['Do I need to bring my own mat?', 'visit.html'],
  ['Can I shower after class?', 'visit.html'],
  ['Where can I park?', 'visit.html'],
  ["What's the difference between hatha and vinyasa?", ''],
  ['Can I cancel a booking?', 'timetable.html'],
  ['Do you offer private lessons?', ''],
  ['Is there a trial offer for new people?', 'prices.html'],
  ['How do I get there by bus?', 'visit.html'],
];
// 2 of 6 declined: "hot yoga", "my child", "yoga clothes", "teacher training" share the words of a
// four-page studio's every page (docs/retrieval.md, "Declining": the price of the small-site limit).
const YOGA_UNANSWERABLE = [
  'Do you teach hot yoga?',
  'Do you have a sauna?',
  'Can I bring my child to class?',
  'Do you sell yoga clothes?',
  'Is there a café?',
  'Do you offer teacher training?',
];

// A five-page online shop, written with its questions before any was asked; asked once: 13 of 16 from
// the right page, 3 of 6 declined. Its misses led to: a verb of trade ("sell", "deliver") counts as
// neither present nor absent and weighs as a context word ("Do you sell coffee?" was answered by "We
// sell … teas"), and words match without accents (the FAQ says "cafés"): 14 of 16, 5 of 6.
const TEASHOP: [string, string][] = [
  ['How much is shipping?', 'delivery.html'],
  ['Do you deliver to Germany?', 'delivery.html'],
  ['Is delivery free?', 'delivery.html'],
  ['How long will my order take to arrive?', 'delivery.html'],
  ['Can I return opened tea?', 'returns.html'],
  ['My tea arrived broken, what do I do?', 'returns.html'],
  ['How do I get a refund?', 'returns.html'],
  ['Is your tea organic?', 'faq.html'],
  ['Is there caffeine in green tea?', 'faq.html'],
  ['How do I keep tea fresh?', 'faq.html'],
  ['Do you sell to cafes?', 'faq.html'],
  ['Can I visit your shop?', 'about.html'],
  ["What's your phone number?", 'about.html'],
  ['Do you have a tea subscription?', ''],
  ['How much is the jasmine tea?', ''],
  ['Can I track my parcel?', 'delivery.html'],
];
const TEASHOP_UNANSWERABLE = [
  'Do you sell coffee?',
  'Can I pay with PayPal?',
  'Do you have a loyalty scheme?',
  'Is your packaging plastic-free?',
  'Can I collect my order from the shop?',
];

// A Spanish hair salon, asked in Spanish (the stemmer is English's: "cortar" does not meet "corte").
// Written with its questions; asked once: 7 of 10 from the right page, 6 of 6 declined, and three of the
// declines said in English. Since: "¿" marks Spanish, "puedo", "tenéis" are stop words and the words
// asking for a price are not absent words: 8 of 10, 6 of 6, every reply in Spanish.
const PELUQUERIA: [string, string][] = [
  ['¿Cuánto cuesta un corte de pelo de hombre?', 'servicios.html'],
  ['cuanto cuesta cortar el pelo a un niño', 'servicios.html'],
  ['¿Abrís los domingos?', 'reservas.html'],
  ['¿Hacéis mechas?', 'servicios.html'],
  ['¿Cuál es vuestro horario?', 'reservas.html'],
  ['¿Dónde estáis?', 'contacto.html'],
  ['¿Puedo pagar con Bizum?', 'contacto.html'],
  ['¿Hay que pedir cita?', 'reservas.html'],
  ['¿Usáis productos veganos?', ''],
  ['¿Hacéis peinados de novia?', 'servicios.html'],
];
const PELUQUERIA_UNANSWERABLE = [
  '¿Tenéis parking?',
  '¿Hacéis manicura?',
  '¿Hacéis depilación?',
  '¿Tenéis tarjetas regalo?',
  '¿Cortáis el pelo a perros?',
  '¿Vendéis secadores de pelo?',
];

// A five-page B&B, its questions written with it and asked once: 9 of 10 and 5 of 5. The miss, "Is there
// wifi?" of a page that says "Wi-Fi", led to a word of two hyphened pieces being indexed and read without
// its hyphen too: 10 of 10.
const BNB: [string, string][] = [
  ['What time is check-in?', 'your-stay.html'],
  ['Can we bring our dog?', 'your-stay.html'],
  ['Is breakfast included?', 'rooms.html'],
  ['Is there wifi?', 'your-stay.html'],
  ['How far is the beach?', 'find-us.html'],
  ['Do you have parking?', 'find-us.html'],
  ['How much is a double room?', 'rooms.html'],
  ["What's your cancellation policy?", 'booking.html'],
  ['Are children welcome?', 'your-stay.html'],
  ['Can we check out late?', 'your-stay.html'],
];
const BNB_UNANSWERABLE = [
  'Do you have a swimming pool?',
  'Is there a gym?',
  'Can I pay in bitcoin?',
  'Do you have an EV charger?',
  'Is there a lift?',
];

// A software product's site (pricing table, features, integrations, security, FAQ), written with its
// questions before any was asked. On first asking: 16 of 18 from the right page ("do I need a credit card
// for the trial" was taken for a request for a trial and offered the contact form; "SSO" is "single
// sign-on" on the page), 3 of 6 declined (Salesforce, Linux, bitcoin answered with what the site says of
// integrations, apps, payment).
const SAAS: [string, string][] = [
  ['do you have a free plan?', 'pricing.html'],
  ['how much is it per user?', 'pricing.html'],
  ['is there a discount if I pay yearly', 'pricing.html'],
  ['do I need a credit card for the trial', 'pricing.html'],
  ['can I cancel anytime?', 'pricing.html'],
  ['does it work with quickbooks', 'integrations.html'],
  ['do you have an api', 'integrations.html'],
  ['is there a mobile app', 'features.html'],
  ['can I bill clients in different currencies', 'features.html'],
  ['where is my data stored', 'security.html'],
  ['are you GDPR compliant', 'security.html'],
  ['do you support SSO', 'security.html'],
  ['can I import my data from Toggl', 'faq.html'],
  ['do you offer a discount for charities', 'faq.html'],
  ['what happens to my data if I cancel', 'faq.html'],
  ['how do I contact support', 'faq.html'],
  ['can I pay by paypal', 'pricing.html'],
  ['how many users on the starter plan', 'pricing.html'],
];
const SAAS_UNANSWERABLE = [
  'Do you have an on-premise version?',
  'Does it do payroll?',
  'Is there a Linux desktop app?',
  'Do you integrate with Salesforce?',
  'Are you SOC 2 certified?',
];

// A plumber's site (services with prices, areas as a list of towns, FAQ, contact; the firm's name in
// every page's header and footer), written with its questions before any was asked: 16 of 19 from the
// right page on first asking and now (the home page wins "Vaillant boilers" by "fixing"/"Fixed prices",
// "charge per hour" by "No call-out charge", "gas safe registered" by its first sentence); 3 of 6
// declined ("air" and "heat" are in the firm's name on every page: "install air conditioning", "install
// heat pumps" and "electrical work" are answered from what the site says of installing and working).
const PLUMBER: [string, string][] = [
  ['how much is a boiler service?', 'services.html'],
  ['do you fix Vaillant boilers', 'services.html'],
  ['how much does a new boiler cost', 'services.html'],
  ['my toilet keeps running, can you fix it?', 'services.html'],
  ['what do you charge per hour', 'services.html'],
  ['my sink is blocked', 'services.html'],
  ['how much is a gas safety certificate for my rental flat', 'services.html'],
  ['do you cover Otley?', 'areas.html'],
  ['are quotes free?', 'faq.html'],
  ['can I pay by card', 'faq.html'],
  ['do you need a deposit', 'faq.html'],
  ['are you gas safe registered', 'faq.html'],
  ['do you do work for businesses', 'faq.html'],
  ["what's your phone number", 'contact.html'],
  ['I have a burst pipe, can someone come now?', ''],
  ['how much is an emergency callout at night', 'services.html'],
  ['do you fit bathrooms', 'services.html'],
  ['is your work guaranteed', ''],
  ['when is your office open', 'contact.html'],
];
const PLUMBER_UNANSWERABLE = [
  'Do you install air conditioning?',
  'Do you fit solar panels?',
  'Can you fix my washing machine?',
  'Do you offer a discount for pensioners?',
  'Do you install heat pumps?',
  'Do you do electrical work?',
];

// A language school (courses, a price table whose columns are weeks, accommodation, FAQ, contact; the
// school's name, with "English", on every page), written with its questions before any was asked: 13 of
// 20 from the right page and 5 of 6 declined on first asking; 16 and 5 now ("near" counted as a word the
// site lacks and declined "is the school near the train station"; the courses page's folded section
// headings, "IELTS preparation", weighed as body words). The misses: on seven chunks one chunk's word
// decides (the FAQ's "fees" twice outrank the price list's one), and world knowledge ("christmas" is
// "20 December", "minimum age" is "aged 16 and over", "study online" is "Online lessons" on Zoom).
const SCHOOL: [string, string][] = [
  ['how much is general english for 2 weeks', 'prices.html'],
  ['how many students in a class', ''],
  ['when do courses start', ''],
  ['do you have IELTS classes', 'courses.html'],
  ['can I study online', 'courses.html'],
  ['is there a registration fee', 'prices.html'],
  ['how much is the airport transfer from heathrow', 'prices.html'],
  ['can I stay with a family', 'accommodation.html'],
  ['how far is the residence from the school', 'accommodation.html'],
  ['do I need a visa to study', 'faq.html'],
  ['whats the minimum age', 'faq.html'],
  ['do I get a certificate at the end', 'faq.html'],
  ['what if my visa is refused', 'faq.html'],
  ['how much deposit do I pay', 'faq.html'],
  ['are you open at christmas', 'prices.html'],
  ['how long is a lesson', 'courses.html'],
  ['do you organise trips', ''],
  ['is the school near the train station', 'contact.html'],
  ['whats your whatsapp', 'contact.html'],
  ["I'm a beginner, can I join", ''],
];
const SCHOOL_UNANSWERABLE = [
  'Do you teach Spanish?',
  'Is there a swimming pool?',
  'Do you offer TOEFL preparation?',
  'Is there parking at the school?',
  'Do you have evening classes?',
  'Do you have a gym?',
];

// An accountant's site (prose services page of many short sections folded into one chunk, a fees table,
// about, contact), written with its questions before any was asked: 12 of 18 from the right page and 5 of 6
// declined on first asking; 14 and 5 now (the services page's section headings, "Payroll", now weigh as
// headings). The misses: "come to your office" is "never need to visit", "paid" is no form of "pay" to
// the stemmer, the firm's "Chartered Accountants" is in every page's footer, and the fees table's
// "Bookkeeping check" outranks the "Bookkeeping" section.
const ACCOUNTANT: [string, string][] = [
  ['can you do my self assessment tax return', 'services.html'],
  ['how much for a tax return', 'fees.html'],
  ['do you do payroll', 'services.html'],
  ['how much is payroll for 10 employees', 'fees.html'],
  ['can you help me register for VAT', 'services.html'],
  ['should I be a sole trader or a limited company', 'services.html'],
  ['how much do you charge a limited company', 'fees.html'],
  ['is the first meeting free', 'fees.html'],
  ['do you use Xero', ''],
  ['do I have to come to your office', 'about.html'],
  ['do you work with farmers', 'about.html'],
  ['when is the self assessment deadline', 'services.html'],
  ['how do I pay your fees', 'fees.html'],
  ['are you chartered accountants', 'about.html'],
  ['are you open on saturdays', 'contact.html'],
  ['where can I park', 'contact.html'],
  ['can you do my bookkeeping', 'services.html'],
  ['do you file confirmation statements', 'services.html'],
];
const ACCOUNTANT_UNANSWERABLE = [
  'Do you do audits?',
  'Can you help with inheritance tax planning?',
  'Do you offer mortgage advice?',
  'Do you have an office in London?',
  'Can you file my US tax return?',
  'Do you do R&D tax credit claims?',
];

// A town museum (opening times and tickets as tables, exhibitions, schools and groups, café and shop,
// contact; the museum's name on every page), written with its questions before any was asked: 18 of
// 23 from the right page and 5 of 6 declined on first asking; 19 now ("can I take photos" was declined:
// the page says "photographs"). The misses: "what exhibitions are on at the moment" is answered from
// the home page's "What's on" (rightly, but not the page it was written for), "do I need to book" from
// the groups page's two "book"s, "can I go to the cafe without paying for the museum" from the visit
// page's "pay and display" car park; "membership" is a "Friend" (declined: the page that says
// "membership" states no price). "Do you run evening ghost tours?" is answered with the guided tours.
const MUSEUM: [string, string][] = [
  ['what time do you open on sunday', 'visit.html'],
  ['are you open on mondays', 'visit.html'],
  ['how much is a ticket for an adult', 'visit.html'],
  ['how much for a family ticket', 'visit.html'],
  ['is it free for toddlers', 'visit.html'],
  ['do I need to book', 'visit.html'],
  ['where can I park', 'visit.html'],
  ['is there a lift', 'visit.html'],
  ['can I bring my guide dog', 'visit.html'],
  ['can I take photos', 'visit.html'],
  ['what exhibitions are on at the moment', 'exhibitions.html'],
  ['when does the boats exhibition open', 'exhibitions.html'],
  ['is there an audio guide in french', 'exhibitions.html'],
  ['how much is a school workshop', 'schools.html'],
  ['do you do discounts for groups', 'schools.html'],
  ['can we have a kids birthday party there', 'schools.html'],
  ['do you have vegan food in the cafe', 'cafe.html'],
  ['can I go to the cafe without paying for the museum', 'cafe.html'],
  ['do you sell gift vouchers', 'cafe.html'],
  ['how do I become a volunteer', 'contact.html'],
  ["what's your phone number", 'contact.html'],
  ['how far is it from the station', 'visit.html'],
  ['how much does membership cost', ''],
];
const MUSEUM_UNANSWERABLE = [
  'Do you have a cloakroom for bags?',
  'Is there wifi in the museum?',
  'Is there a baby changing room?',
  'Do you have a planetarium?',
  'Do you buy old diving equipment?',
  'Do you run evening ghost tours?',
];

// A home-cleaning company (services, a price table, FAQ, contact; a list of reasons on the home
// page), written with its questions before any was asked: 16 of 24 from the right page and 6 of 6
// declined on first asking. The misses: "charge" is in the FAQ's "at no charge" and not on the prices
// page ("how much do you charge per hour", "do you charge more on saturdays": the latter's second
// source says "Weekend visits cost £4 an hour more"); "same" and "more" are stop words ("will I get the
// same cleaner each time"); "breakages" is not "break" ("what if you break something" is declined);
// "police checked" is "DBS checked", "be in" is "be at home". Two answer well from another page: "do
// you do end of tenancy cleans" with the price row, "do I need to buy cleaning products" with "Prices
// include cleaning products and equipment".
const CLEANING: [string, string][] = [
  ['how much do you charge per hour', 'prices.html'],
  ['whats the minimum number of hours', 'prices.html'],
  ['how much is an oven clean', 'prices.html'],
  ['how much for a deep clean of a 3 bed house', 'prices.html'],
  ['do you charge more on saturdays', 'prices.html'],
  ['do you do end of tenancy cleans', 'services.html'],
  ['what if the landlord isnt happy after end of tenancy', 'services.html'],
  ['can you clean my sofa', 'services.html'],
  ['how long do carpets take to dry', 'services.html'],
  ['do you clean offices', 'services.html'],
  ['will you change the bed sheets', 'services.html'],
  ['do I have to be in when you clean', 'faq.html'],
  ['do I need to buy cleaning products', 'faq.html'],
  ['are you insured', 'faq.html'],
  ['what if you break something', 'faq.html'],
  ['I have a dog, is that ok', 'faq.html'],
  ['do you work on bank holidays', 'faq.html'],
  ['do you cover Sale', ''],
  ['will I get the same cleaner each time', ''],
  ['are your cleaners police checked', ''],
  ['is there a contract', ''],
  ['how do I pay', 'prices.html'],
  ['are you hiring cleaners', 'contact.html'],
  ['where is your office', 'contact.html'],
];
const CLEANING_UNANSWERABLE = [
  'Do you clean windows?',
  'Can you do my ironing?',
  'Do you clean cars?',
  'Do you offer gardening?',
  'Can you remove mould from the walls?',
  'Do you do pressure washing of driveways?',
];

// Four sites written together, with the questions they answer, before any was asked (a vet, a knitwear shop, an
// inn, a solicitor): the figures on first asking are in each test’s comment. The questions they must decline
// were written after the first asking.
const VET: [string, string][] = [
  ['How much is a vaccination for my dog?', 'prices.html'],
  ['Are you open on Sunday?', ''],
  ['How much does it cost to neuter a male dog?', 'prices.html'],
  ['Do you do home visits?', 'faq.html'],
  ['how much is a home visit', 'faq.html'],
  ['Can I pay monthly?', ''],
  ['Do you take insurance?', 'prices.html'],
  ['when should I book the travel certificate', 'services.html'],
  ['Is there somewhere to park?', 'faq.html'],
  ['Can my pet eat before surgery?', 'faq.html'],
  ['How old does a kitten need to be for its first jabs?', 'services.html'],
  ['Do I have to microchip my cat?', 'services.html'],
  ['What are your opening hours?', ''],
  ['Are you taking on new patients?', ''],
  ['Do you do cremation?', 'services.html'],
  ['How many vets do you have?', ''],
  ['Can I get a repeat prescription?', 'contact.html'],
  ['What number do I call at night?', 'emergency.html'],
  ['Do you treat snakes?', 'services.html'],
  ['Can you see my horse?', 'services.html'],
];
const VET_UNANSWERABLE = [
  'Do you sell pet food?',
  'Do you do dog grooming?',
  'Do you have a cattery for boarding?',
  'Can I buy flea treatment online?',
  'Do you offer puppy training classes?',
  'Do you do acupuncture?',
];
const SHOP: [string, string][] = [
  ['How long does delivery take?', 'delivery.html'],
  ['Do you ship to the US?', 'delivery.html'],
  ['Can I return a jumper?', 'returns.html'],
  ['How long do I have to send something back?', 'returns.html'],
  ['Can I swap for a bigger size?', 'returns.html'],
  ["What size should I get if I'm a UK 14?", 'sizes.html'],
  ['Can I put the scarf in the washing machine?', 'shop.html'],
  ['Do you sell gift vouchers?', ''],
  ['How long is a gift card valid?', ''],
  ['Can I pick up my order?', 'delivery.html'],
  ['Do you have a shop I can visit?', 'about.html'],
  ['Is the wool mulesing free?', 'shop.html'],
  ['Are your jumpers unisex?', 'sizes.html'],
  ['Do I have to pay customs to Canada?', 'delivery.html'],
  ['Can I return a monogrammed scarf?', 'returns.html'],
  ['How much is the cardigan?', 'shop.html'],
  ['Who started the company?', 'about.html'],
  ['Are the jumpers made from merino?', 'shop.html'],
];
const SHOP_UNANSWERABLE = [
  'Is it vegan?',
  "Do you do kids' sizes?",
  'Do you sell socks?',
  'Do you have a loyalty scheme?',
  'Can I pay with Klarna?',
  'Do you make dresses?',
];
const HOTEL: [string, string][] = [
  ['What time is check in?', 'policies.html'],
  ['Can I check out late?', 'policies.html'],
  ['Do you allow dogs?', 'policies.html'],
  ['Is there parking?', 'find-us.html'],
  ['Is breakfast included?', 'rooms.html'],
  ['What time is breakfast?', 'dining.html'],
  ['Do you have a lift?', 'rooms.html'],
  ['How much is a family room?', 'rooms.html'],
  ['Do you have a cot?', 'rooms.html'],
  ['Can I cancel my booking?', 'policies.html'],
  ['How do I get there by train?', 'find-us.html'],
  ['Is there wifi?', ''],
  ['Can I smoke in my room?', 'policies.html'],
  ['How far is the beach?', ''],
  ['How far is the airport?', 'find-us.html'],
  ['Do you need a deposit?', 'policies.html'],
  ['Do you have a room with a balcony?', 'rooms.html'],
  ['Is there a restaurant?', 'dining.html'],
];
const HOTEL_UNANSWERABLE = [
  'Do you have a pool?',
  'Is there a gym?',
  'Do you have a spa?',
  'Can I get an airport shuttle?',
  'Do you have electric car charging?',
  'Is there a kids club?',
];
const SOLICITOR: [string, string][] = [
  ['How much is a will?', 'fees.html'],
  ['Do you do legal aid?', 'family.html'],
  ['How long does buying a house take?', 'conveyancing.html'],
  ['Can you help with my divorce?', 'family.html'],
  ['How much does a divorce cost?', 'fees.html'],
  ['Do you charge by the hour?', 'fees.html'],
  ['Do you do powers of attorney?', 'wills.html'],
  ['Where do you keep my will?', 'wills.html'],
  ['Do you offer a free consultation?', ''],
  ['Can I see someone in the evening?', 'contact.html'],
  ['What documents do I need to buy a house?', 'conveyancing.html'],
  ['How long does a divorce take?', 'family.html'],
  ['Where can I park?', 'contact.html'],
  ['Do you do mediation?', 'family.html'],
  ['How much for selling my house?', 'fees.html'],
  ["Can you deal with my mum's estate?", 'wills.html'],
];
const SOLICITOR_UNANSWERABLE = [
  'Do you do immigration law?',
  'Do you handle criminal cases?',
  'Can you help with a speeding ticket?',
  'Do you do employment tribunals?',
  'Can you help me sue my landlord?',
  'Do you do personal injury claims?',
];

describe('small sites', () => {
  const chat = siteChat();
  beforeAll(() => chat.start());
  afterAll(() => chat.stop());

  async function askSite(dir: string, name: string, pages = 4) {
    const { site, pagesIndexed, ask } = await chat.crawl(smallSite(dir), name);
    expect(pagesIndexed).toBe(pages);
    const score = async (answerable: [string, string][], unanswerable: string[]) => {
      const right: string[] = [];
      for (const [question, page] of answerable) {
        const { sources } = await ask(question);
        if (sources[0]?.url.replace(/\/(index\.html)?$/, '') === `${site.url}${page ? `/${page}` : ''}`) right.push(question);
      }
      const declined: string[] = [];
      for (const question of unanswerable) if ((await ask(question)).sources.length === 0) declined.push(question);
      return { right, declined };
    };
    return { ask, score, site };
  }

  it('a restaurant: answers most questions worded unlike its pages from the right page, and declines most it cannot answer', async () => {
    const { ask, score } = await askSite('restaurant', 'Trattoria Bella Vista');
    // Only a heading says "Takeaway": the section under it is quoted, not the page's first sentence.
    expect((await ask('Do you do takeaway?')).answer).toContain('Pizza and pasta can be ordered for collection by phone.');
    const { right, declined } = await score(RESTAURANT, RESTAURANT_UNANSWERABLE);
    // Measured when written: 10 of 10 from the right page, 5 of 6 declined ("outdoor seating" is answered
    // with the upstairs room's seats: the words cannot tell it from "vegan options").
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(9);
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(5);
    // Typed as chat is typed: no apostrophe, "pls", "u". Each was declined ("whats", "pls" counted as words the site lacks).
    const typed = await score(
      [
        ['whats the address', 'visit.html'],
        ['is there parking nearby pls', 'visit.html'],
        ['can u tell me if u have vegan options', 'menu.html'],
      ],
      [],
    );
    expect(typed.right).toHaveLength(3);
  });

  it('a dental practice: the same, on questions written before its answers were looked at', async () => {
    const { score } = await askSite('dental', 'Riverside Dental Practice');
    const { right, declined } = await score(DENTAL, DENTAL_UNANSWERABLE);
    // 10 of 12 and 6 of 6 (the misses: "toothache" and "scared" are words no page relates). "Saturday" went
    // to the home page's "outside opening hours" until a day named searched "weekend" too (the contact
    // page: "We are closed at weekends"); "instalments" to the parking's "pay-and-display" until paying over
    // time was a question the page stating it answers (instalments-question.ts): "can be spread over 12 months".
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(9);
    expect(right).toEqual(expect.arrayContaining(['Are you open on Saturday?', 'Can I pay in instalments?']));
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(5);
  });

  it('a yoga studio: a page of one chunk that answers is not outranked by a longer page', async () => {
    const { score } = await askSite('yoga', 'Oakfield Yoga');
    const { right, declined } = await score(YOGA, YOGA_UNANSWERABLE);
    // 10 of 13 (the misses: "evening" is said only as "7pm"; the timetable names hatha and vinyasa more
    // often than the home page that tells them apart; "bus" and "buses" stem apart), 2 of 6.
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(9);
    expect(right).toEqual(
      expect.arrayContaining(['Can I shower after class?', 'Can I cancel a booking?', 'Is there a trial offer for new people?']),
    );
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(2);
  });

  it('an online shop: its FAQ, its price list and its cafés, asked without the accent', async () => {
    const { ask, score } = await askSite('teashop', 'Leafline Tea Co.', 5);
    const { right, declined } = await score(TEASHOP, TEASHOP_UNANSWERABLE);
    // 15 of 16 (the miss: "arrive" is the returns page's "arrived damaged"), 4 of 5 ("collect my order from
    // the shop" gets the tasting room's address). "Do you deliver to Australia?", once among the questions to
    // decline, is answered with where it ships (the delivery questions' test below).
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(14);
    expect(right).toContain('Do you sell to cafes?');
    expect(right).toContain('Do you deliver to Germany?');
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(4);
    expect(declined).toContain('Do you sell coffee?');
    // The FAQ's own question before its answer; the price list's line as a sentence.
    expect((await ask('Is your tea organic?')).answer).toMatch(/^Are your teas organic\? About half of our range/);
    expect((await ask('How much is the jasmine tea?')).answer).toContain('Jasmine Pearls — £9.00 / 50 g.');
  });

  it('a swimming pool whose times and prices are tables: the row that answers, read as a sentence', async () => {
    const { ask } = await askSite('pool', 'Brookside Leisure Pool');
    const rows: [string, string][] = [
      ['What time do you open on Saturday?', 'Opening times: Saturday — Public swim: 9am–5pm. [1]'],
      ['are you open sunday afternoon', 'Opening times: Sunday — Public swim: 9am–3pm. [1]'],
      ['How much is a child swim?', 'Prices: Child swim (under 16): £2.80. [1]'],
      ['How much is membership?', 'Prices: Monthly membership: £32.00. [1]'],
    ];
    for (const [question, answer] of rows) expect((await ask(question)).answer, question).toBe(answer);
  });

  it('a garage that states its address and phone number only in the footer of every page', async () => {
    const { ask } = await askSite('garage', 'Dale Street Motors');
    for (const question of ["What's your phone number?", 'Where are you?']) {
      const res = await ask(question);
      expect(res.answer, question).toBe(
        'Dale Street Motors, 42 Dale Street, Sheffield S1 4GH · Tel 0114\u00a0496\u00a00321 · Open Mon–Fri 8am–5:30pm. [1]',
      );
      expect(res.sources.map((s) => s.url.replace(/\/(index\.html)?$/, ''))).toEqual([expect.stringMatching(/:\d+$/)]);
    }
    // So are its opening hours, there only.
    expect((await ask('opening hours?')).answer).toContain('Open Mon–Fri 8am–5:30pm.');
    // The cookie banner beside a short page's text is not the page's text.
    expect((await ask('Do you use cookies?')).sources).toEqual([]);
    expect((await ask('How much is an MOT?')).answer).toMatch(/^MOT testing: Our MOT costs £45/);
  });

  it('a B&B: "wifi" finds the page that says "Wi-Fi"', async () => {
    const { ask, score } = await askSite('bnb', 'Seaview House', 5);
    const { right, declined } = await score(BNB, BNB_UNANSWERABLE);
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(9);
    expect(right).toContain('Is there wifi?');
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(4);
    expect((await ask('Is there wifi?')).answer).toBe('Free Wi-Fi throughout the house. [1]');
  });

  it('a software product: its pricing table, its FAQ, and the names of products it does not work with', async () => {
    const { ask, score } = await askSite('saas', 'Tallyboard', 6);
    const { right, declined } = await score(SAAS, SAAS_UNANSWERABLE);
    // 17 of 18 (the miss: "SSO"), 5 of 5. "Can I pay in bitcoin?", once among the questions to decline, is
    // answered with the ways it is paid, under a lead that says the site does not mention bitcoin (below).
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(16);
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(4);
    // A question about the trial is answered, not taken for a request for one.
    const trial = await ask('do I need a credit card for the trial');
    expect(trial.leadCaptureIntent).toBe(false);
    expect(trial.answer).toContain('No credit card is needed to start the trial.');
    // A capitalised name inside the question that the site never mentions: the site is not about it.
    expect(declined).toEqual(expect.arrayContaining(['Do you integrate with Salesforce?', 'Is there a Linux desktop app?']));
    // A related page's FAQ question is not quoted as if it answered.
    expect((await ask('is there a discount if I pay yearly')).answer).not.toContain('non-profits?');
  });

  it('a plumber: a list of towns, a list under a heading, and the registration number in the footer', async () => {
    const { ask, score } = await askSite('plumber', 'Aire Valley Plumbing & Heating', 5);
    const { right, declined } = await score(PLUMBER, PLUMBER_UNANSWERABLE);
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(15);
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(3);
    // The towns are the sentence's that introduces them (it quoted "Give us a call" under "Rothwell" as a heading).
    expect((await ask('do you cover Otley?')).answer).toBe(
      'Areas we cover: We work across Leeds and within about 15 miles of the city centre, including: Headingley, Horsforth, Pudsey, Morley, Otley, Wetherby, Garforth, Rothwell. [1]',
    );
    // An item of the list under "Why choose us" answers alone (the home page's first sentence was quoted).
    expect((await ask('is your work guaranteed')).answer).toBe('Why choose us: All work guaranteed for 12 months. [1]');
    // "registered no. 584213" in the footer ends no sentence: no "Gas Safe registered no." after the answer.
    expect((await ask('I have a burst pipe, can someone come now?')).answer).toBe(
      'Emergencies: Our emergency engineers are on call 24 hours a day, 365 days a year, and usually with you within two hours. [1]',
    );
  });

  it('a language school: a price table by weeks, and "near" the station', async () => {
    const { ask, score } = await askSite('school', 'Harbour English School', 6);
    const { right, declined } = await score(SCHOOL, SCHOOL_UNANSWERABLE);
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(15);
    expect(right).toEqual(expect.arrayContaining(['is the school near the train station', 'do you have IELTS classes']));
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(4);
    expect((await ask('is the school near the train station')).answer).toBe(
      "Contact us: We are on Quay Street, five minutes' walk from Brighton station and the seafront. [1]",
    );
    // The table's row, not the closing dates' "2 January".
    expect((await ask('how much is general english for 2 weeks')).answer).toMatch(
      /^Dates and prices 2027: General English — 1–3 weeks: £295; 4–11 weeks: £270; 12\+ weeks: £245\. \[1\]/,
    );
  });

  it('an accountant: a services page of many short sections in one chunk, beside a fees table', async () => {
    const { ask, score } = await askSite('accountant', 'Fenwick & Hale', 5);
    const { right, declined } = await score(ACCOUNTANT, ACCOUNTANT_UNANSWERABLE);
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(13);
    expect(right).toContain('do you do payroll');
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(4);
    expect((await ask('do you do payroll')).answer).toMatch(/^Weekly or monthly payroll, payslips/);
    // What only its footer says: the detail asked for, not the whole line.
    expect((await ask('Are you regulated?')).answer).toBe('Regulated by the ICAEW. [1]');
  });

  it('a museum: tables of times and tickets, and a word visitors clip ("photos" of "photographs")', async () => {
    const { ask, score } = await askSite('museum', 'Saltmarsh Museum', 6);
    const { right, declined } = await score(MUSEUM, MUSEUM_UNANSWERABLE);
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(18);
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(4);
    expect((await ask('can I take photos')).answer).toBe(
      'Photography: You are welcome to take photographs for personal use, without flash. [1]',
    );
    // A heading with a colon is a heading: what is under it is quoted ("Coming next: Boats of the Swale"
    // was quoted as a label line, and then the divers' "lead boots" as a slip of "boats").
    expect((await ask('when does the boats exhibition open')).answer).toMatch(/^Coming next: Boats of the Swale — Opens 14 June\./);
    // An American visitor's words for what the museum names the British way.
    for (const question of ['Is there an elevator?', 'Is there a restroom?'])
      expect((await ask(question)).answer, question).toMatch(
        /^Accessibility: (The ground floor, the café and the accessible toilet|A lift)/,
      );
    // Its tables, asked about as a whole: each row read as a sentence under the table's name.
    expect((await ask('How much is a ticket?')).answer).toMatch(
      /^Tickets — Adult: £9\.50\. Concession \(over 65, student\): £7\.50\. Child \(5–16\): £4\.50\. Under 5: Free\. Family \(2 adults, up to 3 children\): £24\. \[1\]/,
    );
    // "Are you open now?" asks for them too (it was answered with "Phone: … (during opening hours)").
    for (const question of ['What are your opening hours?', 'Are you open now?'])
      expect((await ask(question)).answer, question).toBe(
        'Opening times — April to October — Days: Tuesday to Sunday; Hours: 10am–5pm. November to March — Days: Wednesday to Sunday; Hours: 10am–4pm. [1]',
      );
  });

  it('a home-cleaning company: a price table and a FAQ, and the services it does not offer', async () => {
    const { ask, score } = await askSite('cleaning', 'Sparkle & Co', 5);
    const { right, declined } = await score(CLEANING, CLEANING_UNANSWERABLE);
    // The home page's list, under its section's heading: the item that answers, not the sentence after the list.
    expect((await ask('Do you use eco-friendly products?')).answer).toBe(
      'Why customers stay with us: Eco-friendly products included in the price. [1]',
    );
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(15);
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(5);
    expect((await ask('how much is an oven clean')).answer).toBe('Prices: Oven clean, single oven: £65. [1]');
    expect((await ask('do you clean offices')).answer).toBe(
      'Carpets and upholstery: We do not clean offices or shops: we only clean homes. [1]',
    );
  });

  it('a Spanish hair salon, asked and answered in Spanish', async () => {
    const { ask, score } = await askSite('peluqueria', 'Peluquería Lucía');
    const { right, declined } = await score(PELUQUERIA, PELUQUERIA_UNANSWERABLE);
    // 9 of 10 (the miss: "niño" and "cortar" are "infantil" and "corte" on the page), 6 of 6: "tenéis" and
    // "hacéis" counted as words the site lacks until a lexeme was a stop word only by the words stemming to
    // it; "¿Tenéis tarjetas regalo?" was then half missing, and answered with the cards the salon accepts
    // ("Aceptamos tarjeta…") until gift cards were a question only a page naming them answers.
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(7);
    expect(right).toContain('¿Puedo pagar con Bizum?');
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(5);
    expect(declined).toContain('¿Tenéis tarjetas regalo?');
    for (const question of ['¿Tenéis parking?', '¿Hacéis manicura?']) expect((await ask(question)).answer, question).toMatch(/^No lo sé/);
  });

  it('a vet: prices in a table, services under headings, a contact page of details', async () => {
    const { ask, score } = await askSite('vet', 'Riverside Vets', 6);
    const { right, declined } = await score(VET, VET_UNANSWERABLE);
    // First asked: 17 of 20, 3 of 6. "Do I have to microchip my cat?" went to the price list, whose
    // "Microchip | £25" row stands beside "Cat spay" (close in the index, not in one sentence); now the
    // services page's "It is a legal requirement for dogs and, since June 2024, cats…". Unanswered
    // wrongly: "pet food" (the fasting before an operation), "dog grooming" (the dogs' vaccinations).
    // "Can I pay monthly?" quoted "We accept cards, cash and Apple Pay"; now the Pet Health Club's "£14.50 a month".
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(17);
    expect(right).toEqual(expect.arrayContaining(['Do I have to microchip my cat?', 'Can I pay monthly?']));
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(3);
    // The contact page's line of details is no heading of the sentence under it.
    expect((await ask('Can I get a repeat prescription?')).answer).toMatch(/^Contact us: Repeat prescriptions: order online/);
    // The practice's own address, from its contact page: the out-of-hours page names the emergency clinic's.
    expect((await ask('Where are you?')).answer).toMatch(/^Contact us: Riverside Veterinary Surgery, 14 Mill Lane/);
    // "bus" and "buses" stem apart.
    expect((await ask('Is there a bus?')).answer).toBe("Contact us: Buses 24 and 25 stop on East Street, two minutes' walk away. [1]");
  });

  it('a knitwear shop: delivery asked as shipping, returns, a size table', async () => {
    const { ask, score } = await askSite('shop', 'Wren & Thistle', 6);
    const { right, declined } = await score(SHOP, SHOP_UNANSWERABLE);
    // First asked: 15 of 18, 4 of 6. "Do you ship to the US?" ("us" a stop word) had no word but the
    // verb, which counts for nothing beside a thing asked about: the size guide was quoted. Now the verb
    // is the question, searched as "delivery" too.
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(15);
    expect(right).toContain('Do you ship to the US?');
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(3);
    // "How long … take": the verb asks for the duration, it is no word a page must hold ("take the smaller one").
    const delivery = await ask('How long does delivery take?');
    expect(delivery.answer).toMatch(/^Delivery — UK standard/);
    expect(delivery.answer).not.toContain('smaller one');
    // The price answers: no related page's sentence that names the cardigan and no price.
    // The footer's line of details, its number with no word before it, not under the home page's last heading ("Gift cards").
    expect((await ask('phone number')).answer).toBe(
      'Customer care: care@wrenandthistle.example · 0131\u00a0496\u00a00455 (Mon–Fri 9am–5pm) [1]',
    );
    expect((await ask('where are you based')).answer).toBe('Wren & Thistle Ltd, Unit 4, Leith Workshops, Edinburgh EH6 6QU. [1]');
    expect((await ask('How much is the cardigan?')).answer).toBe(
      'Leith cardigan: Lightweight merino and lambswool cardigan with horn buttons. Sizes XS–XL. £145. [1]',
    );
  });

  it('an inn: rooms in a table, policies under headings, a dining page', async () => {
    const { ask, score } = await askSite('hotel', 'The Harbour Inn', 5);
    const { right, declined } = await score(HOTEL, HOTEL_UNANSWERABLE);
    // First asked: 16 of 18, 4 of 6. "Can I smoke in my room?" quoted the "dining room: full Cornish,
    // smoked haddock" — close words across a colon; now "The inn is non-smoking throughout…".
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(16);
    expect(right).toContain('Can I smoke in my room?');
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(3);
    // The address and the number only in the footer's line of details.
    expect((await ask('whats the phone number')).answer).toBe(
      'The Harbour Inn, Quay Street, St Ives, Cornwall TR26 1LT · 01736\u00a0496\u00a0210 · stay@harbourinn.example. [1]',
    );
    expect((await ask('Do you have a lift?')).answer).toBe(
      'Our rooms: There is no lift; the harbour view rooms are on the second and third floors. [1]',
    );
  });

  it('a solicitor: fixed fees in a table, services by page, a regulator in the footer', async () => {
    const { ask, score } = await askSite('solicitor', 'Marsh Cooper Solicitors', 6);
    const { right, declined } = await score(SOLICITOR, SOLICITOR_UNANSWERABLE);
    // First asked and now: 11 of 16, 5 of 6. Missed: "will" is a stop word ("How much is a will?",
    // "Where do you keep my will?"), "house" is the fee table's word where the conveyancing page says
    // "home" and "purchase", "immigration law" is half on the site.
    expect(right.length, `answered from the right page: ${right.join(' | ')}`).toBeGreaterThanOrEqual(10);
    expect(declined.length, `declined: ${declined.join(' | ')}`).toBeGreaterThanOrEqual(4);
    expect((await ask('How much does a divorce cost?')).answer).toBe('Our fees: Uncontested divorce: £750 plus the £612 court fee. [1]');
    // "buy" is the fee table's "purchase".
    expect((await ask('How much does it cost to buy a house?')).answer).toBe(
      'Our fees: Purchase of a freehold house up to £500,000: £1,350. [1]',
    );
  });

  it('answers a follow-up asking what its topic is like about that topic, and declines it where the topic is not on the site', async () => {
    // "is it free?" was searched with "free" as the visitor's word and "parking" as context: "we keep
    // emergency slots free every weekday morning".
    const dental = await askSite('dental', 'Riverside Dental Practice');
    const parking = await dental.ask('Do you have parking?');
    expect((await dental.ask('is it free?', parking.sessionId)).answer).toBe(
      'Address: Pay-and-display parking is available on King Street. [1]',
    );
    // The garage's pages say nothing of parking: its "free retest" was quoted.
    const garage = await askSite('garage', 'Dale Street Motors');
    const none = await garage.ask('Do you have parking?');
    expect((await garage.ask('is it free?', none.sessionId)).sources).toEqual([]);
    // The topic is the last question's that names one: "bus", not "free" or "parking" before it.
    const yoga = await askSite('yoga', 'Oakfield Yoga');
    let sessionId: string | undefined;
    for (const question of ['Do you have parking?', 'is it free?', 'is there a bus?'])
      sessionId = (await yoga.ask(question, sessionId)).sessionId;
    expect((await yoga.ask('how often does it run?', sessionId)).answer).toMatch(/^Getting here: Buses 11 and 12 stop outside\./);
  });

  it('answers a follow-up of its own topic from a page holding its words, and one of no words of its own about the last topic', async () => {
    // The words of the question before are the follow-up's context: "is there parking?" after the opening
    // hours was answered with "During opening hours, call us…" (the vet) and "Phone: … (during opening
    // hours)" (the museum), pages holding the context words and none of the visitor's.
    const vet = await askSite('vet', 'Riverside Vets', 6);
    const museum = await askSite('museum', 'Saltmarsh Museum', 6);
    for (const [site, parking] of [
      [vet, /^Is there parking\? We have eight free spaces/],
      [museum, /^Getting here: The nearest car park is Gorrell Tank/],
    ] as const) {
      const hours = await site.ask('What are your opening hours?');
      expect((await site.ask('is there parking?', hours.sessionId)).answer).toMatch(parking);
    }
    const hours = await museum.ask('What are your opening hours?');
    expect((await museum.ask('and on Sundays?', hours.sessionId)).answer).toMatch(
      /^Opening times: April to October — Days: Tuesday to Sunday/,
    );
    // "how much?" names nothing: it asks the price of the last topic, and a site without that topic declines
    // it (the vet quoted "All prices include VAT" for implants it does not do).
    const dental = await askSite('dental', 'Riverside Dental Practice');
    const implants = await dental.ask('Do you do implants?');
    expect((await dental.ask('how much?', implants.sessionId)).answer).toMatch(/A single implant including the crown costs from £2,400/);
    const none = await vet.ask('Do you do implants?');
    expect((await vet.ask('how much?', none.sessionId)).sources).toEqual([]);
    // Nor does "is there a charge?": a guest house declined it after "Can I bring my dog?" ("charge" is on none of its pages).
    const bnb = await askSite('bnb', 'Seaview House', 5);
    const dog = await bnb.ask('Can I bring my dog?');
    expect((await bnb.ask('is there a charge?', dog.sessionId)).answer).toBe(
      'Well-behaved dogs are welcome in two of our rooms for £15 per stay. [1]',
    );
  });

  it('reads "bring" as the frame of a question about the thing brought, as a verb of trade', async () => {
    // "Can I bring my dog?" was answered with "…bring a list of any medicines you take": "bring" held, "dog" absent, half missing.
    const { ask } = await askSite('dental', 'Riverside Dental Practice');
    for (const question of ['Can I bring my dog?', 'can I bring my own wine?']) expect((await ask(question)).sources, question).toEqual([]);
    // Asked about nothing but bringing, the verb is the topic.
    expect((await ask('Do I need to bring anything?')).answer).toMatch(/bring a list of any medicines you take/);
  });

  it('answers "how do I get there?" with the address, as "where are you?"', async () => {
    // It was answered with the booking policy ("Book a table by phone…") its words found.
    const { ask } = await askSite('restaurant', 'Trattoria Bella Vista');
    expect((await ask('How do I get there?')).answer).toMatch(/^Find us: Trattoria Bella Vista, 27 Call Lane, Leeds LS1 7BT\./);
  });

  it('answers how the business is paid from the page that says it, whatever the way asked about, and declines where none says it', async () => {
    const school = await askSite('school', 'Harbour English School', 6);
    // "Do you take cash?" was declined for "cash"; the school's answer is the ways it takes.
    for (const question of ['Can I pay by card?', 'do you take cash?'])
      expect((await school.ask(question)).answer, question).toMatch(/by bank transfer or card\. \[1\]$/);
    // "pay" and "card" are on their pages in other senses: "You pay one fixed fee each month", "Pay and
    // display parking", "digital gift cards" were quoted.
    // Of a software company's pages, its own payment ("We accept Visa, Mastercard…"), not its invoicing
    // feature's "let clients pay online by card", which holds both words.
    const saas = await askSite('saas', 'Tallyboard', 6);
    expect((await saas.ask('Can I pay by card?')).answer).toMatch(/^Payment: We accept Visa, Mastercard, American Express and PayPal\./);
    // A way of paying the page names in other words ("American Express") is no way it does not mention; one it
    // does not name gets a lead saying so — the ways it takes read as a yes. "Do you take Amex?" quoted the
    // integrations page's "Payments: Let clients pay invoices online with Stripe or PayPal", a product's feature.
    expect((await saas.ask('Do you take Amex?')).answer).toMatch(/^Payment: We accept Visa, Mastercard, American Express and PayPal\./);
    for (const [question, typed] of [
      ['Can I pay in bitcoin?', 'bitcoin'],
      ['do you take cash?', 'cash'],
    ])
      expect((await saas.ask(question as string)).answer, question).toMatch(
        new RegExp(
          `^Tallyboard's website doesn't mention ${typed}\\. It says: Payment: We accept Visa, Mastercard, American Express and PayPal\\.`,
        ),
      );
    for (const [dir, name, pages] of [
      ['accountant', 'Fenwick & Hale', 5],
      ['solicitor', 'Marsh Cooper Solicitors', 6],
      ['teashop', 'Leafline Tea Co.', 5],
    ] as const) {
      const { ask } = await askSite(dir, name, pages);
      const answer = await ask('Can I pay by card?');
      if (dir === 'accountant')
        expect(answer.answer).toBe(
          "Fenwick & Hale's website doesn't mention card. It says: Our fees are fixed and paid monthly by direct debit. Prices exclude VAT. [1]",
        );
      else expect(answer.sources, dir).toEqual([]);
    }
  });

  it('answers whether visitors can come without booking from the sentence that says so, and an order change only from one about orders', async () => {
    // "walk-ins" was read as "walk": five sites quoted how far they are from the station.
    const restaurant = await askSite('restaurant', 'Trattoria Bella Vista');
    for (const question of ['Do you accept walk-ins?', 'can I just turn up?'])
      expect((await restaurant.ask(question)).answer, question).toMatch(/We keep a few tables free for walk-ins every evening\./);
    const museum = await askSite('museum', 'Saltmarsh Museum', 6);
    expect((await museum.ask('Do you accept walk-ins?')).answer).toMatch(/there is no need to book except for groups of 10 or more\./);
    const hotel = await askSite('hotel', 'The Harbour Inn', 5);
    expect((await hotel.ask('Do you accept walk-ins?')).sources).toEqual([]);
    // A hotel quoted "Change at St Erth for the branch line"; its cancellation policy is about bookings, not orders.
    expect((await hotel.ask('Can I change my order?')).sources).toEqual([]);
  });

  it('answers what areas the business covers from the sentence that says where it works, and declines where none does', async () => {
    // A cleaning company quoted "breakages are covered", a language school its course "covering speaking…".
    const cleaning = await askSite('cleaning', 'Sparkle & Co', 5);
    expect((await cleaning.ask('What areas do you cover?')).answer).toBe(
      'A cleaner home, every week: Since 2014 our teams have cleaned homes across Didsbury, Chorlton, Withington, Sale and Stockport. [1]',
    );
    const plumber = await askSite('plumber', 'Aire Valley Plumbing & Heating', 5);
    expect((await plumber.ask('Do you cover my area?')).answer).toMatch(/^Areas we cover: We work across Leeds and within about 15 miles/);
    const school = await askSite('school', 'Harbour English School', 6);
    expect((await school.ask('What areas do you cover?')).sources).toEqual([]);
  });

  it('answers how long the business has been going from the sentence that says since when, and declines where none does', async () => {
    // It was answered with the home page's opening, which says since when on most sites and not on all: a
    // tea shop quoted what it sells, an inn its "17th-century pub".
    const teashop = await askSite('teashop', 'Leafline Tea Co.', 5);
    expect((await teashop.ask('How long have you been in business?')).answer).toMatch(
      /^About us: Leafline was started in 2018 by two friends/,
    );
    const hotel = await askSite('hotel', 'The Harbour Inn', 5);
    expect((await hotel.ask('How long have you been in business?')).sources).toEqual([]);
    // A section's name that says it: the vet's home page is headed "Caring for Bristol's pets since 1994".
    const vet = await askSite('vet', 'Riverside Vets', 6);
    expect((await vet.ask('how long have you been around?')).answer).toMatch(/^Caring for Bristol's pets since 1994: /);
  });

  it('answers whether the bill can be paid over time from the page that says so, and declines where none says it', async () => {
    // Credit ("finance", "instalments") is stated as credit; paying by the month by so much a month too.
    const plumber = await askSite('plumber', 'Aire Valley Plumbing & Heating', 5);
    expect((await plumber.ask('Do you offer finance?')).answer).toBe('Boilers: Finance is available on new boiler installations. [1]');
    const yoga = await askSite('yoga', 'Oakfield Yoga');
    expect((await yoga.ask('Can I pay monthly?')).answer).toMatch(/^Membership: Unlimited classes for £75 a month/);
    expect((await yoga.ask('Do you offer finance?')).sources).toEqual([]);
    // Gift cards: the page naming them, in whatever words the question is put.
    const shop = await askSite('shop', 'Wren & Thistle', 6);
    expect((await shop.ask('How long is a gift voucher valid?')).answer).toMatch(/valid for two years\. \[1\]$/);
  });

  it('answers whether the business delivers from the page that says how, in whatever words, and declines where none says it', async () => {
    // Every page of the knitwear shop says "delivery", none "deliver": the question was declined for the verb.
    const shop = await askSite('shop', 'Wren & Thistle', 6);
    for (const question of ['do you deliver?', 'Do you ship abroad?']) {
      const res = await shop.ask(question);
      expect(res.sources[0]?.url, question).toBe(`${shop.site.url}/delivery.html`);
      expect(res.answer, question).toMatch(/^Delivery — UK standard/);
    }
    // A place no page names: where it ships is the answer ("We ship to the EU, the USA and Canada"), said to
    // be what the site says, not a yes.
    const teashop = await askSite('teashop', 'Leafline Tea Co.', 5);
    expect((await teashop.ask('Do you deliver to Australia?')).answer).toMatch(
      /^Leafline Tea Co\.'s website doesn't mention Australia\. It says: International: We ship to the EU, the USA and Canada\./,
    );
    for (const question of ['Do you ship to Canada?', 'Do you ship abroad?'])
      expect((await teashop.ask(question)).answer, question).toMatch(/^International: We ship to the EU, the USA and Canada\./);
    // A place a table's row names, under the section that says it is about delivery.
    expect((await shop.ask('Do you ship to Canada?')).answer).toMatch(/^Delivery: USA and Canada — Time: 5–8 working days; Cost: £22\./);
    // The sentence that says it, not the heading that names it ("Takeaway and delivery" was quoted alone).
    const restaurant = await askSite('restaurant', 'Trattoria Bella Vista');
    for (const question of ['do you do delivery?', 'Do you deliver?'])
      expect((await restaurant.ask(question)).answer, question).toBe(
        'Takeaway and delivery: We deliver through Deliveroo within three miles. [1]',
      );
    const garage = await askSite('garage', 'Dale Street Motors');
    expect((await garage.ask('do you deliver?')).answer).toMatch(/free collection and delivery within 5 miles/);
    const dental = await askSite('dental', 'Riverside Dental Practice');
    for (const question of ['do you deliver?', 'Do you ship abroad?']) expect((await dental.ask(question)).sources, question).toEqual([]);
  });

  it('answers whether the business takes people on from the page that says it, and declines where none does', async () => {
    // "hiring" is the museum's venue hire, "job" a plumber's job finished, "work" a shop's delivery table.
    const museum = await askSite('museum', 'Saltmarsh Museum', 6);
    for (const question of ['are you hiring?', 'can I work for you?'])
      expect((await museum.ask(question)).answer, question).toMatch(
        /^Volunteering: If you can give one afternoon a week, we would love to hear from you/,
      );
    // The section's heading says what its sentences offer: "Join our team" above "We are always looking for reliable cleaners".
    const cleaning = await askSite('cleaning', 'Sparkle & Co', 5);
    expect((await cleaning.ask('are you hiring?')).answer).toMatch(/^Join our team: We are always looking for reliable cleaners\./);
    const plumber = await askSite('plumber', 'Aire Valley Plumbing & Heating', 5);
    expect((await plumber.ask('Do you have any job vacancies?')).sources).toEqual([]);
    const shop = await askSite('shop', 'Wren & Thistle', 6);
    expect((await shop.ask('can I work for you?')).sources).toEqual([]);
  });

  it('answers whether a booking can be changed or cancelled from the page that says how, and declines where none does', async () => {
    // "change" was a hotel's "Change at St Erth", a yoga studio's changing rooms; "cancel my booking" an
    // accountant's "we will move your books online".
    const hotel = await askSite('hotel', 'The Harbour Inn', 5);
    for (const question of ['Can I change my appointment?', 'can we move our reservation to Friday?'])
      expect((await hotel.ask(question)).answer, question).toMatch(/^Cancel up to 7 days before arrival for a full refund/);
    const yoga = await askSite('yoga', 'Oakfield Yoga');
    expect((await yoga.ask('Can I change my appointment?')).answer).toBe(
      'Booking: You can cancel up to 12 hours before class without losing the credit. [1]',
    );
    const dental = await askSite('dental', 'Riverside Dental Practice');
    expect((await dental.ask('I need to reschedule my booking')).answer).toMatch(/to book or change an appointment\. \[1\]$/);
    const accountant = await askSite('accountant', 'Fenwick & Hale', 5);
    expect((await accountant.ask('Can I cancel my booking?')).sources).toEqual([]);
  });

  it('answers a question for a discount from a page that states one, for the group asked about, and declines where none does', async () => {
    // A language school answered "Is there a student discount?" with its student residence, a dental
    // practice "do you have any offers?" with "We offer NHS and private dentistry".
    const school = await askSite('school', 'Harbour English School', 6);
    expect((await school.ask('Is there a student discount?')).sources).toEqual([]);
    const dental = await askSite('dental', 'Riverside Dental Practice');
    expect((await dental.ask('do you have any offers?')).sources).toEqual([]);
    const yoga = await askSite('yoga', 'Oakfield Yoga');
    expect((await yoga.ask('Do you offer a discount for pensioners?')).answer).toBe('Membership: Students and over-65s pay £55. [1]');
    // A discount for another group ("Children under three stay free") is none for students; any answers "any offers?".
    const hotel = await askSite('hotel', 'The Harbour Inn', 5);
    expect((await hotel.ask('Is there a student discount?')).sources).toEqual([]);
    expect((await hotel.ask('do you have any offers?')).answer).toMatch(/Children under three stay free\./);
  });

  it('answers a question for a fact about the business from the sentence that states it, and declines where none does', async () => {
    // "free" was a garage's free collection, "family" an inn's family room, "insured" a vet's pet insurers.
    const garage = await askSite('garage', 'Dale Street Motors');
    expect((await garage.ask('Do you offer free quotes?')).sources).toEqual([]);
    expect((await garage.ask('Are you family run?')).answer).toMatch(/Family-run garage fixing all makes and models since 1998\./);
    const hotel = await askSite('hotel', 'The Harbour Inn', 5);
    expect((await hotel.ask('Are you family run?')).sources).toEqual([]);
    const vet = await askSite('vet', 'Riverside Vets', 6);
    expect((await vet.ask('Are you insured?')).sources).toEqual([]);
    const plumber = await askSite('plumber', 'Aire Valley Plumbing & Heating', 5);
    expect((await plumber.ask('Do you offer free quotes?')).answer).toMatch(/Quotes are free and without obligation/);
  });

  it('reads a bank holiday as a day, not a bank', async () => {
    // A software company answered "Are you open on bank holidays?" with "pay by bank transfer"; a language
    // school that is "closed on UK public holidays" declined it.
    const saas = await askSite('saas', 'Tallyboard', 6);
    expect((await saas.ask('Are you open on bank holidays?')).sources).toEqual([]);
    const school = await askSite('school', 'Harbour English School', 6);
    expect((await school.ask('Are you open on bank holidays?')).answer).toMatch(/The school is closed on UK public holidays/);
  });

  it('answers a price asked per a unit with one stated per it, and declines where none is', async () => {
    // "how much do you charge per hour" quoted a FAQ's "put it right at no charge" within "24 hours".
    const cleaning = await askSite('cleaning', 'Sparkle & Co', 5);
    expect((await cleaning.ask('how much do you charge per hour')).answer).toMatch(/^Prices: Regular cleaning: £19 an hour/);
    // The rate is on a page the answer's pages had left out: the question was declined.
    const plumber = await askSite('plumber', 'Aire Valley Plumbing & Heating', 5);
    expect((await plumber.ask('how much do you charge per hour')).answer).toMatch(
      /£65 for the first hour and £45 for each hour after that/,
    );
    // A B&B has nightly rates, in a table whose column says so, and no hourly one.
    const bnb = await askSite('bnb', 'Seaview House', 5);
    expect((await bnb.ask('How much is a room a night?')).sources.map((s) => s.url)).toEqual([`${bnb.site.url}/rooms.html`]);
    expect((await bnb.ask('hourly rate?')).sources).toEqual([]);
  });
});
