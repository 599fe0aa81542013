import { foldForIntent } from '../../intent/classifier.ts';
/**
 * The few sentences kbchat says itself rather than quoting the site: "I don't know" and the
 * contact offer. In the visitor's language when it is one of the widget's five (a guess from
 * function words — enough for a one-line reply), English otherwise.
 */
export type ReplyLanguage = 'en' | 'es' | 'fr' | 'de' | 'pt';

// Function words, plus the short answers a visitor gives to a question ("yes", "oui", "ja", "sí",
// "sim"). English also lists words of short requests ("call me about a quote": "about", "call"),
// so that a message of two or three words is not won by a single Portuguese "a".
const MARKERS: Record<ReplyLanguage, Set<string>> = {
  en: new Set(
    'the is are do does how what can you i my to of and in for it this with please about we our your us would could like need want call quote yes yeah sure thanks thank'.split(
      ' ',
    ),
  ),
  es: new Set(
    'el la los las es como que para por un una puedo tienen mi quiero con del hola gracias usted si claro vale llamenme porfa contactame hay tiene teneis haceis hacen donde cuanto cuesta cuando abris abren estais'.split(
      ' ',
    ),
  ),
  fr: new Set(
    'le la les est comment que pour un une je vous mon avec des du bonjour merci pouvez oui volontiers moi svp etre combien'.split(' '),
  ),
  de: new Set(
    'der die das ist wie was ich sie ein eine mit und fur mein kann hallo danke bitte ja gerne nein mich mir uns gibt welche bist sind ihr wer wo nicht kein habe haben'.split(
      ' ',
    ),
  ),
  pt: new Set(
    'o a os as e como que para um uma eu voce voces meu com do da ola obrigado quero sim nao obrigada claro por liga ligar podem gostaria sobre chama quanto custa fazem tem'.split(
      ' ',
    ),
  ),
};

/**
 * The language with the most marker words; `fallback` (English unless given — e.g. the language of
 * the conversation so far) when no marker is found, and among tied languages when it is one of them.
 */
export function guessLanguage(text: string, fallback: ReplyLanguage = 'en'): ReplyLanguage {
  const words = foldForIntent(text).match(/[\p{L}]+/gu) ?? [];
  // Only Spanish opens a question or an exclamation with "¿" or "¡": "¿Tenéis parking?" has no other marker.
  const opened = /[¿¡]/.test(text) ? 2 : 0;
  let best: ReplyLanguage = fallback;
  let bestScore = 0;
  // The fallback first, then English: ties go to them (English is the most common language of the
  // sites we index).
  const order = [fallback, ...(Object.keys(MARKERS) as ReplyLanguage[]).filter((l) => l !== fallback)];
  for (const lang of order) {
    let score = lang === 'es' ? opened : 0;
    for (const w of words) if (MARKERS[lang].has(w)) score++;
    if (score > bestScore) {
      best = lang;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The language to reply in: the message's, or when it has no marker words ("ok"), the conversation's —
 * the visitor's last message, else the last reply. A reply quoting the site is the site's language, and
 * an English quote's articles ("A 25-metre pool, a learner pool and a sauna") read as Portuguese's "a".
 */
export function replyLanguage(message: string, history: readonly { role: string; content: string }[] = []): ReplyLanguage {
  const lastReply = history.findLast((t) => t.role === 'assistant');
  const lastAsked = history.findLast((t) => t.role === 'user');
  const conversation = lastReply ? guessLanguage(lastReply.content) : 'en';
  return guessLanguage(message, lastAsked ? guessLanguage(lastAsked.content, conversation) : conversation);
}

/** "Oakfield Yoga's", "Riverside Vets'": English's possessive of a name. */
export function possessive(name: string): string {
  return /s$/i.test(name) ? `${name}'` : `${name}'s`;
}

export function dontKnowReply(clientName: string, lang: ReplyLanguage): string {
  switch (lang) {
    case 'es':
      return `No lo sé: no encontré esa información en el sitio de ${clientName}. ¿Quiere que alguien de ${clientName} se ponga en contacto con usted?`;
    case 'fr':
      return `Je ne sais pas : je n'ai pas trouvé cette information sur le site de ${clientName}. Souhaitez-vous que quelqu'un de ${clientName} vous contacte ?`;
    case 'de':
      return `Das weiß ich leider nicht – ich habe dazu nichts auf der Website von ${clientName} gefunden. Möchten Sie, dass sich jemand von ${clientName} bei Ihnen meldet?`;
    case 'pt':
      return `Não sei: não encontrei essa informação no site da ${clientName}. Gostaria que alguém da ${clientName} entrasse em contato com você?`;
    default:
      return `I don't know — I couldn't find that on ${possessive(clientName)} website. Would you like someone from ${clientName} to contact you?`;
  }
}

/**
 * Before a quote that answers a question without naming what the visitor named ("Do you deliver to
 * Australia?" answered with where the shop ships): the quote is what the site says, not a yes.
 */
export function notMentionedLead(things: string[], clientName: string, lang: ReplyLanguage): string {
  const list = (and: string) => (things.length < 2 ? (things[0] ?? '') : `${things.slice(0, -1).join(', ')} ${and} ${things.at(-1)}`);
  switch (lang) {
    case 'es':
      return `El sitio de ${clientName} no menciona ${list('ni')}. Dice:`;
    case 'fr':
      return `Le site de ${clientName} ne mentionne pas ${list('ni')}. Il indique :`;
    case 'de':
      return `Die Website von ${clientName} erwähnt ${list('und')} nicht. Dort steht:`;
    case 'pt':
      return `O site da ${clientName} não menciona ${list('nem')}. Diz:`;
    default:
      return `${possessive(clientName)} website doesn't mention ${list('or')}. It says:`;
  }
}

export function contactOfferReply(clientName: string, lang: ReplyLanguage): string {
  switch (lang) {
    case 'es':
      return `Con gusto: deje su nombre y su correo en el formulario y alguien de ${clientName} se pondrá en contacto con usted.`;
    case 'fr':
      return `Avec plaisir : laissez votre nom et votre e-mail dans le formulaire et quelqu'un de ${clientName} vous contactera.`;
    case 'de':
      return `Gern – hinterlassen Sie Ihren Namen und Ihre E-Mail-Adresse im Formular, dann meldet sich jemand von ${clientName} bei Ihnen.`;
    case 'pt':
      return `Com prazer: deixe seu nome e e-mail no formulário e alguém da ${clientName} entrará em contato com você.`;
    default:
      return `Happy to help — leave your name and email in the form and someone from ${clientName} will get in touch with you.`;
  }
}

// Answers in which a model says it has nothing: then citing "the top passages" would invent sources.
const DONT_KNOW =
  /\b(i don['’]?t know|i do not know|i couldn['’]?t find|i could not find|i can['’]?t find|i cannot find|not (mentioned|covered|found) in|no information (about|on)|don['’]?t have (any )?information|no lo se|no encontr[eé]|no tengo informaci[oó]n|je ne sais pas|je n['’]ai pas trouv[eé]|aucune information|wei[sß] ich (leider )?nicht|keine informationen|nichts gefunden|n[aã]o sei|n[aã]o encontrei|n[aã]o tenho informa[cç][oõ]es)(?![a-z])/i;

export function soundsLikeDontKnow(answer: string): boolean {
  return DONT_KNOW.test(answer);
}

/**
 * A message that is only a greeting, a thank-you, an "ok, got it", a "no thanks", a goodbye, a complaint
 * about the last answer ("that's not what I asked") or a "what?"; or
 * a "yes please" that answers no offer (chat-service decides: it needs the conversation).
 */
export type SmallTalk = 'greeting' | 'thanks' | 'ok' | 'no' | 'goodbye' | 'yes' | 'complaint' | 'unclear';

// Whole phrases, accents folded, in the widget's five languages. A message made of these alone is
// social, not a question: quoting the site at "thanks!" reads as a bot that did not listen.
const SMALL_TALK: [SmallTalk, string][] = [
  [
    'goodbye',
    'bye|bye bye|goodbye|good bye|see you|see ya|cya|later|have a nice day|have a good day|adios|hasta luego|hasta pronto|chao|au revoir|a bientot|bonne journee|tschuss|auf wiedersehen|bis bald|schonen tag|tchau|ate logo|ate mais',
  ],
  [
    // About the last answer, not a question: "I don't know — I couldn't find that" read as a bot that did not
    // listen, and the words alone quoted a page ("you're not helping": "…so teachers can help everyone").
    'complaint',
    'that s wrong|that is wrong|that s not right|that is not right|that s incorrect|that is incorrect|incorrect|that s not what i asked|that is not what i asked|not what i asked|wrong|wrong answer|that s not helpful|not helpful|unhelpful|useless|this is useless|that s useless|you re not helping|youre not helping|not helping|that doesn t help|that didn t help|that does not help|that did not help|that doesn t answer my question|you didn t answer my question|you did not answer my question|eso no es lo que pregunte|no es lo que pregunte|no me ayuda|no me ayudas|no sirve|no sirve de nada|es incorrecto|eso es incorrecto|respuesta incorrecta|ce n est pas ce que j ai demande|ca ne m aide pas|ca n aide pas|c est faux|inutile|pas utile|das ist falsch|falsch|das hilft nicht|das hilft mir nicht|nutzlos|nicht hilfreich|nao foi isso que perguntei|isso nao ajuda|nao ajuda|esta errado|isso esta errado|inutil',
  ],
  [
    'unclear',
    'what|huh|eh|sorry|pardon|come again|what do you mean|i don t understand|i do not understand|i don t get it|i dont get it|i dont understand|como|que|perdon|no entiendo|no lo entiendo|quoi|comment|pardon|je ne comprends pas|wie bitte|was|ich verstehe nicht|ich verstehe das nicht|o que|nao entendi|nao entendo',
  ],
  [
    'no',
    'no|nope|nah|no thanks|no thank you|no thx|not now|no gracias|no muchas gracias|non|non merci|nein|nein danke|nao|nao obrigado|nao obrigada',
  ],
  [
    'thanks',
    'thanks|thank you|thank u|thx|ty|cheers|many thanks|thanks a lot|thanks so much|thank you so much|thank you very much|much appreciated|appreciated|gracias|muchas gracias|mil gracias|merci|merci beaucoup|danke|danke schon|vielen dank|dankeschon|obrigado|obrigada|muito obrigado|muito obrigada|valeu',
  ],
  [
    // An acknowledgement, not thanks: "You're welcome!" to "ok" answers what was not said.
    'ok',
    'ok|okay|k|kk|cool|great|nice|perfect|awesome|got it|alright|all right|good|i see|understood|vale|genial|perfecto|entendido|d accord|parfait|super|compris|alles klar|prima|gut|verstanden|otimo|beleza|perfeito|entendi',
  ],
  [
    'greeting',
    'hi|hello|hey|hiya|howdy|yo|hi there|hello there|hey there|good morning|good afternoon|good evening|hola|buenas|buenos dias|buenas tardes|buenas noches|bonjour|salut|bonsoir|hallo|guten tag|guten morgen|guten abend|servus|moin|ola|oi|bom dia|boa tarde|boa noite',
  ],
];
const SMALL_TALK_KIND = new Map<string, SmallTalk>(
  SMALL_TALK.flatMap(([kind, phrases]) => phrases.split('|').map((p) => [p, kind] as const)),
);
// Every phrase's first words ("thank", "thank you", "thank you so"): where a longer phrase may go on.
const SMALL_TALK_PREFIXES = new Set(
  [...SMALL_TALK_KIND.keys()].flatMap((p) => p.split(' ').map((_, i, words) => words.slice(0, i + 1).join(' '))),
);

export function smallTalkOf(message: string): SmallTalk | undefined {
  const folded = foldForIntent(message)
    .replace(/[^\p{L}\s]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!folded) return undefined;
  // "ok thanks, bye": every part small talk; the kind of the last one answers it.
  let kind: SmallTalk | undefined;
  for (const part of folded.split(' ').reduce<string[]>(joinPhrases, [])) {
    const found = SMALL_TALK_KIND.get(part);
    if (!found) return undefined;
    kind = found;
  }
  return kind;
}

// The words of a message grouped into the longest small-talk phrases ("thank you so much", "bom dia").
function joinPhrases(parts: string[], word: string): string[] {
  const last = parts.at(-1);
  if (last !== undefined && SMALL_TALK_PREFIXES.has(`${last} ${word}`)) parts[parts.length - 1] = `${last} ${word}`;
  else parts.push(word);
  return parts;
}

/** What kbchat says in kind: to small talk, and what the assistant is ("who are you?", chat/about-question.ts). */
export type CannedReply = SmallTalk | 'assistant';

/** The replies; {client} is the client's name, {client's} its possessive. */
const SMALL_TALK_REPLIES: Record<CannedReply, Record<ReplyLanguage, string>> = {
  greeting: {
    en: `Hello! What would you like to know about {client}?`,
    es: `¡Hola! ¿Qué le gustaría saber sobre {client}?`,
    fr: `Bonjour ! Que souhaitez-vous savoir sur {client} ?`,
    de: `Hallo! Was möchten Sie über {client} wissen?`,
    pt: `Olá! O que gostaria de saber sobre a {client}?`,
  },
  thanks: {
    en: "You're welcome! Is there anything else I can help with?",
    es: '¡De nada! ¿Puedo ayudarle con algo más?',
    fr: 'Avec plaisir ! Puis-je vous aider pour autre chose ?',
    de: 'Gern geschehen! Kann ich Ihnen sonst noch helfen?',
    pt: 'De nada! Posso ajudar com mais alguma coisa?',
  },
  complaint: {
    en: "Sorry that didn't help. Would you like someone from {client} to contact you?",
    es: 'Siento no haberle ayudado. ¿Quiere que alguien de {client} se ponga en contacto con usted?',
    fr: "Désolé de ne pas avoir pu vous aider. Souhaitez-vous que quelqu'un de {client} vous contacte ?",
    de: 'Das tut mir leid. Möchten Sie, dass sich jemand von {client} bei Ihnen meldet?',
    pt: 'Desculpe não ter ajudado. Gostaria que alguém da {client} entrasse em contato com você?',
  },
  unclear: {
    en: "Sorry if that was unclear. Could you ask your question in other words? I answer from {client's} website.",
    es: 'Perdone si no quedó claro. ¿Puede hacer su pregunta con otras palabras? Respondo con la información del sitio web de {client}.',
    fr: "Désolé si ce n'était pas clair. Pouvez-vous poser votre question autrement ? Je réponds à partir du site de {client}.",
    de: 'Entschuldigung, wenn das unklar war. Können Sie Ihre Frage anders formulieren? Ich antworte anhand der Website von {client}.',
    pt: 'Desculpe se não ficou claro. Pode fazer a sua pergunta de outra forma? Respondo com base no site da {client}.',
  },
  ok: {
    en: 'Is there anything else I can help with?',
    es: '¿Puedo ayudarle con algo más?',
    fr: 'Puis-je vous aider pour autre chose ?',
    de: 'Kann ich Ihnen sonst noch helfen?',
    pt: 'Posso ajudar com mais alguma coisa?',
  },
  no: {
    en: 'No problem. Is there anything else I can help with?',
    es: 'De acuerdo. ¿Puedo ayudarle con algo más?',
    fr: "D'accord. Puis-je vous aider pour autre chose ?",
    de: 'Kein Problem. Kann ich Ihnen sonst noch helfen?',
    pt: 'Sem problema. Posso ajudar com mais alguma coisa?',
  },
  yes: {
    en: `Sure — what would you like to know about {client}?`,
    es: `¡Claro! ¿Qué le gustaría saber sobre {client}?`,
    fr: `Bien sûr ! Que souhaitez-vous savoir sur {client} ?`,
    de: `Gern! Was möchten Sie über {client} wissen?`,
    pt: `Claro! O que gostaria de saber sobre a {client}?`,
  },
  goodbye: {
    en: `Goodbye, and thank you for visiting {client}!`,
    es: `¡Hasta luego, y gracias por visitar {client}!`,
    fr: `Au revoir, et merci de votre visite chez {client} !`,
    de: `Auf Wiedersehen, und danke für Ihren Besuch bei {client}!`,
    pt: `Até logo, e obrigado pela visita à {client}!`,
  },
  assistant: {
    en: "I'm {client's} virtual assistant, not a person: I answer questions from {client's} website and link the pages I quote, and I can ask someone from {client} to contact you. What would you like to know?",
    es: 'Soy el asistente virtual de {client}, no una persona: respondo preguntas con la información del sitio web de {client}, con enlaces a las páginas que cito, y puedo pedir que alguien de {client} se ponga en contacto con usted. ¿Qué le gustaría saber?',
    fr: "Je suis l'assistant virtuel de {client}, pas une personne : je réponds aux questions à partir du site de {client}, avec un lien vers les pages que je cite, et je peux demander à quelqu'un de {client} de vous contacter. Que souhaitez-vous savoir ?",
    de: 'Ich bin der virtuelle Assistent von {client}, kein Mensch: Ich beantworte Fragen anhand der Website von {client}, mit Links zu den Seiten, die ich zitiere, und kann jemanden von {client} bitten, sich bei Ihnen zu melden. Was möchten Sie wissen?',
    pt: 'Sou o assistente virtual da {client}, não uma pessoa: respondo a perguntas com base no site da {client}, com links para as páginas que cito, e posso pedir que alguém da {client} entre em contato com você. O que gostaria de saber?',
  },
};

export function smallTalkReply(kind: CannedReply, clientName: string, lang: ReplyLanguage): string {
  return SMALL_TALK_REPLIES[kind][lang].replaceAll("{client's}", possessive(clientName)).replaceAll('{client}', clientName);
}
