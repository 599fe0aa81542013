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
    'el la los las es como que para por un una puedo tienen mi quiero con del hola gracias usted si claro vale llamenme porfa contactame'.split(
      ' ',
    ),
  ),
  fr: new Set(
    'le la les est comment que pour un une je vous mon avec des du bonjour merci pouvez oui volontiers moi svp etre combien'.split(' '),
  ),
  de: new Set(
    'der die das ist wie was ich sie ein eine mit und fur mein kann hallo danke bitte ja gerne nein mich mir uns gibt welche'.split(' '),
  ),
  pt: new Set(
    'o a os as e como que para um uma eu voce voces meu com do da ola obrigado quero sim nao obrigada claro por liga ligar podem gostaria sobre chama'.split(
      ' ',
    ),
  ),
};

/**
 * The language with the most marker words; `fallback` (English unless given — e.g. the language of
 * the conversation so far) when no marker is found, and among tied languages when it is one of them.
 */
export function guessLanguage(text: string, fallback: ReplyLanguage = 'en'): ReplyLanguage {
  const words =
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}]+/gu) ?? [];
  let best: ReplyLanguage = fallback;
  let bestScore = 0;
  // The fallback first, then English: ties go to them (English is the most common language of the
  // sites we index).
  const order = [fallback, ...(Object.keys(MARKERS) as ReplyLanguage[]).filter((l) => l !== fallback)];
  for (const lang of order) {
    let score = 0;
    for (const w of words) if (MARKERS[lang].has(w)) score++;
    if (score > bestScore) {
      best = lang;
      bestScore = score;
    }
  }
  return best;
}

/** The language to reply in: the message's, or when it has no marker words ("ok"), the conversation's. */
export function replyLanguage(message: string, history: readonly { role: string; content: string }[] = []): ReplyLanguage {
  const lastReply = history.findLast((t) => t.role === 'assistant');
  return guessLanguage(message, lastReply ? guessLanguage(lastReply.content) : 'en');
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
      return `I don't know — I couldn't find that on ${clientName}'s website. Would you like someone from ${clientName} to contact you?`;
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
