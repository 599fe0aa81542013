import { foldForIntent } from '../intent/classifier.ts';
import { boundedMemo } from '../memo.ts';

/**
 * A message that asks about the chat itself, the business as a whole or its prices (docs/retrieval.md,
 * "Questions about the assistant, the business and its prices"):
 *
 * - `assistant` — "who are you?", "are you a bot?", "is anyone there?", "what can you do?": the
 *   assistant says what it is and what it can do. Quoting the site at them read as a bot that did not
 *   listen ("are you a bot?" was declined with "I don't know", "what can you do?" answered with a
 *   restaurant's booking policy).
 * - `business` — "what do you do?", "what is this place?", "tell me about Oakfield Yoga": answered from
 *   the opening of the site's home page, the business's own description of itself. Their words are no
 *   page's ("do", "place"), so the retrieval quoted whatever shared one ("Book your *place* on our app").
 * - `prices` — "what are your prices?", "how much does it cost?" naming nothing priced: answered from the
 *   client's price list, the chunk stating the most amounts (db/pages.ts). Its only words ("price",
 *   "cost") found a page saying "Prices exclude VAT" or a hotel's check-in times, or none stating an amount.
 *
 * The whole message must be such a question (a greeting before it or "please" after it aside): "can you
 * help me with my divorce?" and "what do you do about refunds?" are questions about the site. Asking for
 * a person ("can I talk to a real person?") is a contact request, decided before this. English, Spanish,
 * French, German and Portuguese (the lead classifier's languages), accents folded.
 */
export type AboutQuestion = 'assistant' | 'business' | 'prices';

// What a chat assistant is called, and what a visitor asks it is not.
const BOT = String.raw`(?:an? )?(?:bot|robot|chat ?bot|ai|a i|machine|computer|program|real person|real human|person|human|human being|real)`;
const SOMEONE = '(?:anyone|anybody|someone|somebody|some one|any one)';

const ASSISTANT = [
  String.raw`who (?:are|r) (?:you|u)`,
  String.raw`what (?:are|r) (?:you|u)`,
  String.raw`who am i (?:talking|speaking|chatting) (?:to|with)`,
  String.raw`who is (?:this|that|there|here)`,
  String.raw`(?:are|r) (?:you|u) ${BOT}`,
  String.raw`am i (?:talking|speaking|chatting) (?:to|with) ${BOT}`,
  String.raw`is (?:this|that|it) ${BOT}`,
  String.raw`is (?:this|that|it) (?:an? )?(?:automated|real|live)(?: (?:chat|person|reply|replies|answer|answers))?`,
  String.raw`is there ${SOMEONE} (?:there|here|around|available|online)`,
  String.raw`(?:is|are) ${SOMEONE}(?: (?:there|here|around|available|online|awake))?`,
  String.raw`what (?:can|could) (?:you|u) (?:do|help(?: me)? with|tell me|help me with)`,
  String.raw`what (?:do|can) (?:you|u) know`,
  String.raw`what can i ask(?: (?:you|u))?`,
  String.raw`how (?:can|could|do|will) (?:you|u) help(?: me)?`,
  String.raw`(?:can|could) (?:you|u) help(?: me)?`,
  String.raw`how does (?:this|it|the chat|this chat) work`,
  String.raw`what is this chat`,
  String.raw`help`,
  // Spanish
  String.raw`quien (?:eres|es usted|sois|es)`,
  String.raw`que eres`,
  String.raw`(?:eres|es usted) (?:un |una )?(?:bot|robot|humano|humana|persona|persona real|maquina|ia)`,
  String.raw`(?:estoy hablando|hablo) con (?:un |una )?(?:bot|robot|humano|persona|persona real|maquina|ia)`,
  String.raw`hay alguien(?: (?:ahi|alli|ai))?`,
  String.raw`(?:que|en que) (?:puedes|puede) (?:hacer|ayudar(?:me)?)`,
  String.raw`(?:como|en que) (?:me )?(?:puedes|puede) ayudar(?:me)?`,
  String.raw`(?:me )?(?:puedes|puede) ayudar(?:me)?`,
  // French
  String.raw`qui (?:es[- ]tu|etes[- ]vous|est[- ]ce)`,
  String.raw`(?:tu es|vous etes|es[- ]tu|etes[- ]vous) (?:un |une )?(?:bot|robot|humain|humaine|personne|vraie personne|machine|ia)`,
  String.raw`(?:y a[- ]t[- ]il|il y a) quelqu ?un(?: (?:la|ici))?`,
  String.raw`que (?:peux[- ]tu|pouvez[- ]vous) faire`,
  String.raw`comment (?:peux[- ]tu|pouvez[- ]vous) m ?aider`,
  String.raw`(?:peux[- ]tu|pouvez[- ]vous) m ?aider`,
  // German
  String.raw`wer (?:bist du|sind sie|ist da)`,
  String.raw`was bist du`,
  String.raw`(?:bist du|sind sie) (?:ein |eine )?(?:bot|roboter|mensch|echter mensch|maschine|ki)`,
  String.raw`ist (?:da )?(?:jemand|wer)(?: da)?`,
  String.raw`was (?:kannst du|konnen sie)(?: (?:tun|machen))?`,
  String.raw`(?:wie|wobei) (?:kannst du|konnen sie) (?:mir )?helfen`,
  String.raw`(?:kannst du|konnen sie) mir helfen`,
  // Portuguese
  String.raw`quem (?:e|es) (?:voce|tu)`,
  String.raw`(?:voce e|es) (?:um |uma )?(?:bot|robo|humano|humana|pessoa|pessoa real|maquina|ia)`,
  String.raw`(?:tem|ha) alguem(?: (?:ai|ali|aqui))?`,
  String.raw`o que (?:voce pode|podes) fazer`,
  String.raw`como (?:voce pode|podes) (?:me )?ajudar`,
  String.raw`(?:voce pode|podes) (?:me )?ajudar`,
];

// The business as a whole: "you" asked what it does, or "this" place, company or site asked what it is.
const PLACE = '(?:place|company|business|firm|shop|store|site|website|web site|page|organi[sz]ation)';
const BUSINESS = [
  String.raw`what (?:do|does) (?:you|u|ya|y all|you (?:guys|all|people|folks))(?: (?:guys|all|people|folks))? do`,
  // "this", not "that": "what's that?" after an answer asks about what it said.
  String.raw`what (?:is|s) this(?: ${PLACE})?(?: about)?`,
  String.raw`whats this(?: ${PLACE})?(?: about)?`,
  String.raw`what (?:are|r) (?:you|u)(?: guys| all| people)? about`,
  String.raw`who (?:are|r) (?:you|u) (?:guys|all|people|folks)`,
  String.raw`what kind of (?:${PLACE}|place) (?:is (?:this|it)|are (?:you|u))`,
  String.raw`what (?:${PLACE}) is (?:this|it)`,
  String.raw`tell me (?:about|more about) (?:yourselves|yourself|you|you guys|the ${PLACE}|this ${PLACE}|your ${PLACE}|what you do)`,
  // What it offers as a whole: "what services do you offer?" (not "what classes do you have?", a timetable's).
  String.raw`what (?:kind of |kinds of |sort of )?(?:services?|products?|work) (?:do|can) (?:you|u)(?: guys)? (?:offer|provide|sell|do|have)`,
  String.raw`what (?:do|can) (?:you|u)(?: guys)? (?:offer|provide|sell)`,
  String.raw`(?:your )?(?:services|products)`,
  String.raw`(?:tell me )?(?:about|more about) (?:you|yourselves|your ${PLACE}|this ${PLACE})`,
  // Spanish
  String.raw`que (?:haceis|hacen|hace usted|haces)`,
  String.raw`a que (?:os dedicais|se dedican|te dedicas|se dedica)`,
  String.raw`quienes (?:sois|son)(?: ustedes| vosotros)?`,
  String.raw`que es (?:esto|este (?:sitio|negocio|lugar|sitio web|web)|esta (?:empresa|web|pagina|tienda))`,
  String.raw`(?:hablame|cuentame|hableme|cuenteme) (?:de|sobre) (?:vosotros|ustedes|la empresa|el negocio)`,
  String.raw`que (?:servicios|productos) (?:ofreceis|ofrecen|ofreces|teneis|tienen|haceis|hacen)`,
  // French
  String.raw`que (?:faites[- ]vous|fais[- ]tu)`,
  String.raw`(?:vous faites|tu fais) quoi`,
  String.raw`qu ?est[- ]ce que (?:vous faites|c ?est|c ?est que ce (?:site|lieu|magasin|commerce))`,
  String.raw`c ?est quoi(?: (?:ce site|cet endroit|cette entreprise|ce magasin|ce commerce))?`,
  String.raw`quelle est votre activite`,
  String.raw`(?:parlez[- ]moi|parle[- ]moi) de (?:vous|toi|votre entreprise|votre activite)`,
  String.raw`quels (?:services|produits) (?:proposez[- ]vous|offrez[- ]vous|vendez[- ]vous)`,
  // German
  String.raw`was (?:macht ihr|machen sie|machst du|tut ihr)`,
  String.raw`wer seid ihr`,
  String.raw`was ist (?:das|das hier|diese (?:seite|firma|website)|dieses (?:geschaft|unternehmen))`,
  String.raw`(?:erzahl|erzahlen sie) (?:mir )?(?:etwas )?(?:von|uber) (?:euch|ihnen|dir|ihrer firma|eurer firma)`,
  String.raw`welche (?:leistungen|dienstleistungen|produkte) (?:bieten sie|bietet ihr)(?: an)?`,
  // Portuguese
  String.raw`o que (?:voces fazem|voce faz|fazem|faz)`,
  String.raw`quem sao(?: voces)?`,
  String.raw`o que e (?:isto|isso|este (?:site|lugar|negocio)|esta (?:empresa|loja|pagina))`,
  String.raw`(?:fale|fala|conte|conta)[- ]?(?:me )?(?:sobre|de) (?:voces|vos|a empresa|o negocio)`,
  String.raw`quais (?:servicos|produtos) (?:voces oferecem|oferecem|voce oferece)`,
];
// Prices asked of nothing in particular. A pronoun ("how much is it?") names what the conversation was about,
// so those count only as a conversation's first message.
const PRICE_WORD = '(?:prices?|pricing|rates?|fees?|charges?|costs?|tariffs?)';
const PRICES = [
  String.raw`what (?:are|r|is) (?:your|ur|the) ${PRICE_WORD}`,
  String.raw`(?:your |the )?(?:${PRICE_WORD}|price list|prices list)`,
  String.raw`(?:do you have|can i see|is there) (?:a |your |the )?(?:price list|prices|pricing)`,
  String.raw`how much (?:do|does) (?:you|u)(?: guys)? charge`,
  String.raw`what do (?:you|u)(?: guys)? charge`,
  String.raw`(?:que|cuales son (?:los|vuestros|sus)) (?:precios|tarifas)(?: teneis| tienen)?`,
  String.raw`(?:precios|tarifas|lista de precios)`,
  String.raw`quels sont (?:vos|les) (?:prix|tarifs)`,
  String.raw`(?:prix|tarifs|vos tarifs|vos prix|grille tarifaire)`,
  String.raw`(?:was sind|wie sind) (?:ihre|eure|die) preise`,
  String.raw`(?:preise|preisliste|ihre preise)`,
  String.raw`quais (?:sao )?(?:os|seus) precos`,
  String.raw`(?:precos|tabela de precos)`,
];
const PRICES_OPENING = [
  String.raw`how much (?:does|do|will|would) (?:it|this|that|they) cost`,
  String.raw`how much (?:is|are) (?:it|this|that|they)`,
  String.raw`what does (?:it|this|that) cost`,
  String.raw`cuanto (?:cuesta|cuestan|vale|valen)`,
  String.raw`combien (?:ca coute|ca coute|coute|coutent)(?: (?:ca|cela))?`,
  String.raw`(?:was|wie ?viel) kostet (?:es|das)`,
  String.raw`quanto (?:custa|custam)`,
];
// The business by its name: "what is Oakfield Yoga?", "tell me about Tallyboard", "what does Tallyboard do?".
const BY_NAME = [
  String.raw`what (?:is|s) {name}`,
  String.raw`whats {name}`,
  String.raw`who (?:is|are) {name}`,
  String.raw`what (?:does|do) {name} do`,
  String.raw`tell me (?:about|more about) {name}`,
  String.raw`(?:que|quien|quienes) (?:es|son) {name}`,
  String.raw`(?:qu ?est[- ]ce que|c ?est quoi|qui est) {name}`,
  String.raw`(?:was|wer) (?:ist|sind) {name}`,
  String.raw`(?:o que|quem) (?:e|sao) {name}`,
];

// Around the question: a greeting before it ("hi, who are you?"), and filler before or after it.
const OPENING = String.raw`(?:(?:hi|hello|hey|hiya|hi there|hello there|hey there|good (?:morning|afternoon|evening)|hola|buenas|buenos dias|buenas tardes|bonjour|salut|bonsoir|hallo|guten tag|moin|ola|oi|bom dia|boa tarde|ok|okay|thanks|thank you|cheers|great|cool|perfect|so|and|also|um|erm|excuse me|sorry|quick question|just wondering|gracias|merci|danke|obrigado|obrigada|y|et|und|e|perdon|pardon|entschuldigung|desculpe) )*`;
const CLOSING = String.raw`(?: (?:please|pls|plz|then|exactly|again|anyway|actually|here|by the way|btw|por favor|s il vous plait|svp|bitte|por favor|exactement|genau|exactamente|exatamente))*`;

const folded = (text: string) =>
  foldForIntent(text)
    .replace(/'/g, '')
    .replace(/[^\p{L}\p{N}\s-]+/gu, ' ')
    .replace(/(?<!\p{L})-|-(?!\p{L})/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
const whole = (patterns: string[]) => new RegExp(`^${OPENING}(?:${patterns.join('|')})${CLOSING}$`);
const ASSISTANT_RE = whole(ASSISTANT);
const BUSINESS_RE = whole(BUSINESS);
const PRICES_RE = whole(PRICES);
const PRICES_OPENING_RE = whole(PRICES_OPENING);

// What a business adds to its name that a visitor leaves out: "Leafline Tea Co." is asked as "Leafline Tea".
const NAME_SUFFIX = /\s+(?:co|company|ltd|limited|inc|llc|plc|gmbh|sl|sa|srl|bv|ag|lda)$/;

/** The ways a visitor types the client's name, folded: whole, without a leading "the" or a company suffix. */
function nameForms(name: string): string[] {
  const forms = new Set<string>();
  // "Fenwick & Hale" is typed "fenwick and hale" or "fenwick hale".
  for (const written of [name, name.replace(/&/g, ' and ')]) {
    const full = folded(written);
    forms.add(full);
    forms.add(full.replace(/^the /, ''));
    forms.add(full.replace(NAME_SUFFIX, ''));
  }
  // A name of one or two letters is none a question could be told apart by.
  return [...forms].filter((f) => f.length >= 3);
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The questions asking for the business by its name, a client's (its name's forms; none for a name too short). */
const byName = boundedMemo(1_000, (clientName: string): RegExp | undefined => {
  const names = nameForms(clientName);
  if (names.length === 0) return undefined;
  const name = `(?:the )?(?:${names.map(literal).join('|')})`;
  return whole(BY_NAME.map((p) => p.replaceAll('{name}', name)));
});

/** `inConversation`: the message follows earlier turns, so a pronoun in it names what they were about. */
export function aboutQuestionOf(message: string, clientName = '', inConversation = false): AboutQuestion | undefined {
  // A long message is a question with its particulars, never only this.
  if (message.length > 120) return undefined;
  const text = folded(message);
  if (!text) return undefined;
  if (ASSISTANT_RE.test(text)) return 'assistant';
  if (BUSINESS_RE.test(text)) return 'business';
  if (PRICES_RE.test(text) || (!inConversation && PRICES_OPENING_RE.test(text))) return 'prices';
  return byName(clientName)?.test(text) ? 'business' : undefined;
}
