import { analyze } from '../providers/text/text-analysis.ts';

/**
 * Words people clip and pages write whole, or the other way round, the words Britain and America
 * spell or name apart, and the words the industry renamed: "can I take *photos*?" of a page that says "photographs", "*info*" of "information", "*bike*" of "bicycle", "*xmas*" of "Christmas".
 * English only, as the stemmer is; a clipping with a common other meaning ("sat", "temp", "ad", "hr")
 * is left out, and so are the clippings of technical writing ("app", "db", "repo", "config"): a
 * documentation site uses both forms, often for two things (Django's "app" and "application"). Each
 * form is searched for the other as a context word (half weight: searched-query.ts), and a clipped
 * word the site lacks is not absent when the other form is on its pages (ranking.ts absentShare).
 */
const PAIRS: [string, string][] = [
  ['photo', 'photograph'],
  ['pic', 'picture'],
  ['info', 'information'],
  ['exam', 'examination'],
  ['lab', 'laboratory'],
  ['vet', 'veterinary'],
  ['fridge', 'refrigerator'],
  ['phone', 'telephone'],
  ['bike', 'bicycle'],
  ['uni', 'university'],
  ['demo', 'demonstration'],
  ['maths', 'mathematics'],
  ['gym', 'gymnasium'],
  ['tv', 'television'],
  ['xmas', 'christmas'],
];

/** Abbreviations typed in a hurry, which pages write in full: searched one way only. */
const ABBREVIATIONS: [string, string][] = [
  ['appt', 'appointment'],
  ['dept', 'department'],
  ['approx', 'approximately'],
  ['mins', 'minutes'],
  ['wk', 'week'],
  ['yr', 'year'],
];

/**
 * British and American spellings of one word: a visitor writes theirs, the site its own ("Can I print
 * *cheques*?" of a guide that says "checks" was declined for the cheques). Searched both ways, as the
 * clippings are — but an American form that is also another common word ("check", "tire", "story",
 * "program", "meter", "mold", "curb") is searched for the British one only one way: a visitor who
 * checks a status asks about no cheque.
 */
const SPELLINGS: [british: string, american: string][] = [
  ['colour', 'color'],
  ['favour', 'favor'],
  ['favourite', 'favorite'],
  ['behaviour', 'behavior'],
  ['flavour', 'flavor'],
  ['honour', 'honor'],
  ['labour', 'labor'],
  ['neighbour', 'neighbor'],
  ['neighbourhood', 'neighborhood'],
  ['harbour', 'harbor'],
  ['humour', 'humor'],
  ['odour', 'odor'],
  ['parlour', 'parlor'],
  ['savoury', 'savory'],
  ['organise', 'organize'],
  ['organised', 'organized'],
  ['organisation', 'organization'],
  ['realise', 'realize'],
  ['recognise', 'recognize'],
  ['apologise', 'apologize'],
  ['authorise', 'authorize'],
  ['authorisation', 'authorization'],
  ['customise', 'customize'],
  ['customisation', 'customization'],
  ['personalise', 'personalize'],
  ['personalised', 'personalized'],
  ['minimise', 'minimize'],
  ['maximise', 'maximize'],
  ['optimise', 'optimize'],
  ['optimisation', 'optimization'],
  ['prioritise', 'prioritize'],
  ['specialise', 'specialize'],
  ['summarise', 'summarize'],
  ['synchronise', 'synchronize'],
  ['finalise', 'finalize'],
  ['centre', 'center'],
  ['litre', 'liter'],
  ['theatre', 'theater'],
  ['fibre', 'fiber'],
  ['catalogue', 'catalog'],
  ['dialogue', 'dialog'],
  ['analogue', 'analog'],
  ['licence', 'license'],
  ['defence', 'defense'],
  ['offence', 'offense'],
  ['grey', 'gray'],
  ['aluminium', 'aluminum'],
  ['jewellery', 'jewelry'],
  ['pyjamas', 'pajamas'],
  ['travelling', 'traveling'],
  ['traveller', 'traveler'],
  ['cancelled', 'canceled'],
  ['cancelling', 'canceling'],
  ['cancellation', 'cancelation'],
  ['labelled', 'labeled'],
  ['modelling', 'modeling'],
  ['enrolment', 'enrollment'],
  ['instalment', 'installment'],
  ['fulfil', 'fulfill'],
  ['judgement', 'judgment'],
  ['ageing', 'aging'],
  ['paediatric', 'pediatric'],
  ['orthopaedic', 'orthopedic'],
  ['anaesthetic', 'anesthetic'],
  ['mum', 'mom'],
];
/** British forms whose American form is also another word: searched for the American one, not back. */
const ONE_WAY_SPELLINGS: [british: string, american: string][] = [
  ['cheque', 'check'],
  ['tyre', 'tire'],
  ['storey', 'story'],
  ['programme', 'program'],
  ['metre', 'meter'],
  ['mould', 'mold'],
  ['kerb', 'curb'],
];

/**
 * Things Britain and America name apart: an American visitor asks "Is there an *elevator*?" of a museum
 * that says "A *lift* takes visitors to the first floor", a British one "can I *hire* the room?" of a page
 * that says "rent". Searched both ways, as the spellings are; only words that mean the thing in both
 * countries' common use ("flat", "gas", "line", "fall", "boot", "cookie" are other words too) and that
 * stand alone (no "car park" for "parking lot").
 */
const NAMES: [british: string, american: string][] = [
  ['lift', 'elevator'],
  ['holiday', 'vacation'],
  ['hire', 'rent'],
  ['toilet', 'restroom'],
  ['pavement', 'sidewalk'],
  ['nappy', 'diaper'],
  ['pushchair', 'stroller'],
  ['postcode', 'zipcode'],
  ['petrol', 'gasoline'],
  ['lorry', 'truck'],
  ['chemist', 'pharmacy'],
  ['solicitor', 'attorney'],
  ['rubbish', 'trash'],
  ['wardrobe', 'closet'],
  ['timetable', 'schedule'],
];

/**
 * What a shop's visitor and its pages call one act: "Do you *ship* to the US?" of a page on
 * "Delivery", "Can I *swap* it for a bigger size?" of one on "Exchanges", "How much does it cost to *buy*
 * a house?" of a fee table's "*Purchase* of a freehold house". Searched both ways, as the names above.
 */
const TRADE_WORDS: [string, string][] = [
  ['deliver', 'ship'],
  ['delivery', 'shipping'],
  ['exchange', 'swap'],
  ['purchase', 'buy'],
];

/**
 * Words the industry renamed (around 2020): a visitor asks about a DNS "blocklist" of documentation that
 * says "blacklist" (the Exim specification), or the other way round (Postfix 3.7 says "allowlist").
 */
const RENAMED: [current: string, former: string][] = [
  ['blocklist', 'blacklist'],
  ['blocklisted', 'blacklisted'],
  ['blocklisting', 'blacklisting'],
  ['allowlist', 'whitelist'],
  ['allowlisted', 'whitelisted'],
  ['allowlisting', 'whitelisting'],
];

/**
 * A verb's irregular past forms and its base: "Where is the lircrc file *kept*?" of a manual that says
 * "The default location for lircrc is…" and "keep" elsewhere, "while a button is *held* down", "which
 * package *built* it". The stemmer leaves them apart (kept, keep). The form is searched for the base (one
 * way: "make" asked is not "made" searched, a base is most questions' verb); forms that are
 * also another common word are left out ("left", "felt", "saw", "rose", "wound", "spoke", "lay", "bound",
 * "ground", "fell", "lit", "sat", "won").
 */
const IRREGULAR: [form: string, base: string][] = [
  ['kept', 'keep'],
  ['held', 'hold'],
  ['sent', 'send'],
  ['built', 'build'],
  ['rebuilt', 'rebuild'],
  ['made', 'make'],
  ['wrote', 'write'],
  ['written', 'write'],
  ['rewritten', 'rewrite'],
  ['overwritten', 'overwrite'],
  ['got', 'get'],
  ['gotten', 'get'],
  ['forgot', 'forget'],
  ['forgotten', 'forget'],
  ['began', 'begin'],
  ['begun', 'begin'],
  ['broke', 'break'],
  ['broken', 'break'],
  ['brought', 'bring'],
  ['bought', 'buy'],
  ['caught', 'catch'],
  ['chose', 'choose'],
  ['chosen', 'choose'],
  ['drew', 'draw'],
  ['drawn', 'draw'],
  ['drove', 'drive'],
  ['driven', 'drive'],
  ['froze', 'freeze'],
  ['frozen', 'freeze'],
  ['gave', 'give'],
  ['given', 'give'],
  ['went', 'go'],
  ['gone', 'go'],
  ['grew', 'grow'],
  ['grown', 'grow'],
  ['hid', 'hide'],
  ['hidden', 'hide'],
  ['hung', 'hang'],
  ['knew', 'know'],
  ['known', 'know'],
  ['lost', 'lose'],
  ['meant', 'mean'],
  ['met', 'meet'],
  ['paid', 'pay'],
  ['prepaid', 'prepay'],
  ['said', 'say'],
  ['seen', 'see'],
  ['sold', 'sell'],
  ['shown', 'show'],
  ['slept', 'sleep'],
  ['spent', 'spend'],
  ['stood', 'stand'],
  ['understood', 'understand'],
  ['stole', 'steal'],
  ['stolen', 'steal'],
  ['stuck', 'stick'],
  ['taught', 'teach'],
  ['told', 'tell'],
  ['thought', 'think'],
  ['threw', 'throw'],
  ['thrown', 'throw'],
  ['woke', 'wake'],
  ['woken', 'wake'],
  ['wore', 'wear'],
  ['worn', 'wear'],
  ['dealt', 'deal'],
  ['fed', 'feed'],
  ['lent', 'lend'],
  ['overrode', 'override'],
  ['overridden', 'override'],
  ['undid', 'undo'],
  ['undone', 'undo'],
  ['withdrew', 'withdraw'],
  ['withdrawn', 'withdraw'],
  ['rode', 'ride'],
  ['ridden', 'ride'],
  ['spoken', 'speak'],
  ['flew', 'fly'],
  ['flown', 'fly'],
  ['ate', 'eat'],
  ['eaten', 'eat'],
  ['swam', 'swim'],
  ['taken', 'take'],
  ['took', 'take'],
  ['mistaken', 'mistake'],
  ['shaken', 'shake'],
  ['sung', 'sing'],
  ['slid', 'slide'],
  ['spun', 'spin'],
  ['swept', 'sweep'],
  ['sought', 'seek'],
  ['fought', 'fight'],
  ['forbidden', 'forbid'],
];

/**
 * Irregular plurals, which the stemmer leaves apart from their singular: "a table for 10 *people*" of a
 * page that says "£10 deposit per *person*", "*teeth* whitening" of "tooth whitening", "loose *leaf*" of
 * "*leaves*". Searched both ways; "man" and "men" are left out ("man page").
 */
const PLURALS: [singular: string, plural: string][] = [
  // Regular, but stemmed apart: "bus" is "bu", "buses" "buse" ("Is there a bus?" of "Buses 24 and 25 stop…").
  ['bus', 'buses'],
  ['person', 'people'],
  ['child', 'children'],
  ['woman', 'women'],
  ['tooth', 'teeth'],
  ['foot', 'feet'],
  ['mouse', 'mice'],
  ['goose', 'geese'],
  ['leaf', 'leaves'],
  ['knife', 'knives'],
  ['half', 'halves'],
  ['shelf', 'shelves'],
];

const bothWays = (pairs: [string, string][]): [string, string][] => [...pairs, ...pairs.map(([a, b]): [string, string] => [b, a])];

/** Each word (and its plural) → the other form's words. */
const OTHER = new Map<string, string>();
for (const [word, other] of [
  ...bothWays(PAIRS),
  ...ABBREVIATIONS,
  ...bothWays(SPELLINGS),
  ...ONE_WAY_SPELLINGS,
  ...bothWays(RENAMED),
  ...bothWays(NAMES),
  ...bothWays(TRADE_WORDS),
  // "ship" is both the verb and the noun pages use: "deliver" and "delivery" (set after the pair above).
  ['ship', 'deliver delivery'] as [string, string],
  ...IRREGULAR,
  ...bothWays(PLURALS),
  ['denylist', 'blacklist'] as [string, string],
]) {
  OTHER.set(word, other);
  if (!word.endsWith('s')) OTHER.set(`${word}s`, other);
}
const WORD = new RegExp(`\\b(?:${[...OTHER.keys()].sort((a, b) => b.length - a.length).join('|')})\\b`, 'g');

/** The other forms of the clipped or whole words in the text, and its superlatives' bases (lower-cased, accents folded), as words to search. */
export function otherForms(folded: string): string[] {
  return [...new Set([...(folded.match(WORD) ?? []).map((w) => OTHER.get(w) as string), ...superlativeForms(folded)])];
}

/** Stem → the stems of its other form ("photo" → ["photograph"]), for the absent-words rule. */
const OTHER_STEMS = new Map<string, string[]>();
for (const [word, other] of OTHER) {
  const stem = analyze(word)[0]?.stem;
  if (stem === undefined) continue;
  // Keyed by the analyser's stem and by the word itself, which is Postgres's lexeme where the two
  // stemmers differ ("bus": Porter's "bu", Snowball's "bus").
  for (const key of new Set([stem, word]))
    OTHER_STEMS.set(key, [...new Set([...(OTHER_STEMS.get(key) ?? []), ...analyze(other).map((t) => t.stem)])]);
}

/** The stems of a stem's other form and, when it is a superlative, of its base ("biggest" → ["big"]): what the absent-words rule looks for on the site. */
export function otherFormStems(stem: string): readonly string[] {
  const superlative = superlativeStems(stem);
  const other = OTHER_STEMS.get(stem) ?? [];
  return superlative.length === 0 ? other : [...other, ...superlative];
}

/**
 * A superlative's base, which the stemmer keeps apart from it: "What is the *biggest* email Postfix
 * accepts?" of a manual that says how big a message may be, the "*earliest* check-in" of a hotel that
 * offers early check-in, the "*cheapest*" room of rooms marked cheap. A doubled consonant goes once
 * ("biggest" → "big"), "-iest" is "-y" ("earliest" → "early"), any other "-est" is the word before it,
 * with or without an "e" ("cheapest" → "cheap", "largest" → "large"). Comparatives are left out: a
 * plain "-er" is as often a word of its own ("server", "order", "letter"). The base is searched as a
 * context word, and the superlative is not absent when its base is on the site (ranking.ts
 * absentShare); a word in "-est" that is no superlative ("request") has no base the site holds.
 */
function superlativeBases(word: string): string[] {
  // "The latest version" is the most recent one, not the most late.
  if (word === 'latest') return [];
  const doubled = /^([a-z]+?)([bdgmnpt])\2est$/.exec(word);
  if (doubled) return [`${doubled[1]}${doubled[2]}`];
  const y = /^([a-z]{2,})iest$/.exec(word);
  if (y) return [`${y[1]}y`];
  const plain = /^([a-z]{3,})est$/.exec(word);
  return plain ? [plain[1] as string, `${plain[1]}e`] : [];
}

/** The bases of the superlatives in the text (lower-cased, accents folded), as words to search. */
function superlativeForms(folded: string): string[] {
  return [...new Set((folded.match(/\b[a-z]{6,}\b/g) ?? []).flatMap(superlativeBases))];
}

/** Stem → the stems of its base when it is a superlative's ("biggest" → ["big"]). */
function superlativeStems(stem: string): string[] {
  return [...new Set(superlativeBases(stem).flatMap((base) => analyze(base).map((t) => t.stem)))];
}

/**
 * Phrasal verbs, searched in the words pages use for them: the noun pages write as one word ("how do
 * I *back up* my database" of a page titled "Backup and Restore", "*rolled back*" of "rollback", "*log
 * in*" of "login"), and the one verb reference pages name the act with ("*turn on* write-ahead
 * logging" of "enable", "*get rid of* the warning" of "remove", "*find out*" of "determine", "*jump
 * to* a package" of "find"). The verb
 * in any form ("backing up", "logged in", "got rid of"); the words are searched as context words. And
 * the verb a visitor sees with, which references write as what a command does: "*see* which index a
 * query is using" of "show", "*view* the logs" of "display".
 */
const PHRASAL: [verb: string, particle: string, words: string][] = [
  ['back', 'up', 'backup'],
  ['set', 'up', 'setup configure'],
  ['log', 'in', 'login'],
  ['log', 'out', 'logout'],
  ['sign', 'up', 'signup register'],
  ['shut', 'down', 'shutdown stop'],
  ['start', 'up', 'startup'],
  ['clean', 'up', 'cleanup'],
  ['look', 'up', 'lookup'],
  ['roll', 'back', 'rollback'],
  ['check', 'out', 'checkout'],
  ['plug', 'in', 'plugin'],
  ['work', 'around', 'workaround'],
  ['pick', 'up', 'pickup collect collection'],
  ['fall', 'back', 'fallback'],
  ['turn|switch', 'on', 'enable activate'],
  ['turn|switch', 'off', 'disable deactivate'],
  ['get|got|gotten', 'rid of', 'remove delete'],
  ['find|found', 'out', 'determine'],
  ['figure', 'out', 'determine'],
  ['throw|threw|thrown', 'away', 'discard'],
  ['leave|left', 'out', 'omit exclude'],
  ['keep|kept', 'track of', 'track monitor'],
  ['speed', 'up', 'faster performance'],
  ['spin|spun', 'up', 'start'],
  ['jump', 'to', 'find'],
  ['see|saw|seen|view', '', 'show display'],
  // Not a verb, and written as one word by the pages: "can I get my *money back*?" of a page on refunds.
  ['money', 'back', 'refund refunds'],
  ['send|sent', 'back', 'return'],
];
/** A pronoun a phrasal verb may hold between its verb and its particle: "send *it* back", "turn *them* off". */
const OBJECT_PRONOUN = '(?:it|them|this|that|these|those|something|everything|one|me|us|him|her)';
/** A verb's forms: "turn" → turns, turned, turning; "log" → logged, logging; "figure" → figured. */
function verbForms(verb: string): string {
  return verb
    .split('|')
    .map((v) => (v.endsWith('e') ? `${v}(?:s|d)?|${v.slice(0, -1)}ing` : `${v}(?:s|ed|ing|${v.at(-1)}ed|${v.at(-1)}ing)?`))
    .join('|');
}
const PHRASAL_RE = PHRASAL.map(([verb, particle, words]) => {
  const source = `\\b(?:${verbForms(verb)})${particle ? `(?:\\s+${OBJECT_PRONOUN})?\\s+${particle.replace(' ', '\\s+')}` : ''}\\b`;
  return {
    re: new RegExp(source),
    every: new RegExp(source, 'g'),
    words,
    // "check out" is the checkout a hotel's page names; "turn on" is no thing of its own.
    frame: particle !== '' && !words.split(' ').includes(`${verb.split('|')[0]}${particle.replace(' ', '')}`),
  };
});

/** The words pages use for the phrasal verbs in the text (lower-cased, accents folded). */
export function phrasalWords(folded: string): string[] {
  return PHRASAL_RE.filter((p) => p.re.test(folded)).map((p) => p.words);
}

/**
 * The stems of the words of the phrasal verbs in the text that name no thing ("turn" of "turn on",
 * "get" and "rid" of "got rid of"): what they ask is in the words searched for them, not in a verb the
 * site need not use. A phrasal verb whose noun pages name ("check out" of a hotel's checkout) is not one.
 */
export function phrasalVerbStems(folded: string): Set<string> {
  const out = new Set<string>();
  for (const p of PHRASAL_RE) {
    if (!p.frame) continue;
    for (const m of folded.match(p.every) ?? []) for (const t of analyze(m)) out.add(t.stem);
  }
  return out;
}

/**
 * Idioms whose noun names no thing the visitor asks about: "send it five times *in a row*", "one *at a
 * time*", "*on the fly*". A site that never writes "row" may answer "how do I send it five times in a row?".
 */
const IDIOMS = /\b(?:in\s+a\s+row|at\s+a\s+time|on\s+the\s+fly)\b/g;

/** The stems of the words of the idioms in the text (lower-cased, accents folded). */
export function idiomStems(folded: string): Set<string> {
  const out = new Set<string>();
  for (const m of folded.match(IDIOMS) ?? []) for (const t of analyze(m)) out.add(t.stem);
  return out;
}
