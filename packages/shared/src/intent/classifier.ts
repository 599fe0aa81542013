/**
 * Offline lead-intent classifier (DESIGN.md §5), used when no chat model decides through its
 * `request_contact` tool. True when the visitor
 *  - asks to be called / contacted / emailed / called back,
 *  - wants a quote or estimate, a demo, a trial set up, or a pricing conversation (custom, enterprise,
 *    volume pricing; "discuss pricing"),
 *  - wants to talk to a person (a human, sales, an agent, a consultant),
 *  - or leaves their own email address or phone number,
 * in English, Spanish, French, German and Portuguese, typed the way people type in a chat box
 * (lower case, no accents, typos in the small words).
 *
 * Deliberately NOT leads (docs/providers.md lists the borderline decisions):
 *  - asking for OUR contact details or how to reach support ("what is your phone number?",
 *    "how do I contact support?") — the site answers that, nobody needs to call the visitor;
 *  - questions about a demo account, the trial, the pricing page or what something costs
 *    ("what does a demo account include?", "how much is the pro plan?") — informational;
 *  - the words in a technical sense: a quote character, calling a function, sending email from code,
 *    a contact form the visitor builds for their own customers.
 *
 * Tested on test/fixtures/lead-intent.json (precision and recall ≥ 0.9).
 */
import { emailsIn, phonesIn } from '../contact-details.ts';

/** Lower case, accents and typographic apostrophes folded, whitespace collapsed. */
export function foldForIntent(message: string): string {
  return message
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[\u2018\u2019\u00b4`]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

// --- Contact details -------------------------------------------------------------------------

// RFC 2606 / 6761 names are placeholders in technical questions ("send mail to bob@example.com"),
// never a visitor's own address; nor is one at a name the Internet does not reach (RFC 6762's .local,
// RFC 8375's home.arpa, .internal, a host's "localdomain"): "from user@localdomain.local to my domain".
const PLACEHOLDER_DOMAIN =
  /@([a-z0-9-]+\.)*(example\.(com|net|org)|[a-z0-9-]+\.(test|example|invalid|localhost|local|internal|localdomain)|home\.arpa|localdomain)$/;

function hasEmail(t: string): boolean {
  for (const m of emailsIn(t)) if (!PLACEHOLDER_DOMAIN.test(m.text)) return true;
  return false;
}
const EMAIL_SPELLED = /\b[a-z0-9._-]+ ?(\(at\)|\[at\]| at ) ?[a-z0-9-]+ ?(\.|\(dot\)|\[dot\]| dot ) ?[a-z]{2,}\b/;
const PHONE_CONTEXT =
  /\b(phone|tel|telephone|number|call|cell|cellphone|mobile|whatsapp|whats|sms|text|telefono|numero|celular|movil|llam\w*|telefone|zap|ligar|liga|portable|appel\w*|nummer|telefonnummer|handy|handynummer|anruf\w*|rufnummer|mobil)\b/;
const NOT_A_PHONE_CONTEXT =
  /\b(order|invoice|ticket|case|tracking|account|acct|id|ref|reference|serial|license|licence|error|code|port|version|build|pedido|factura|referencia|commande|facture|dossier|bestell\w*|rechnung|kunden\w*|fatura|protocolo|chamado)( (number|no|nr|num|numero|nummer|id|is|was|es|est|ist|e))*[^a-z]{0,5}$/;

function looksLikePhone(text: string): boolean {
  for (const { index, text: raw } of phonesIn(text)) {
    const before = text.slice(Math.max(0, index - 40), index);
    if (NOT_A_PHONE_CONTEXT.test(before)) continue;
    const plainNumber = /^\d+$/.test(raw);
    const thousands = /^\d{1,3}([ .,]\d{3})+$/.test(raw);
    const hasPlus = raw.startsWith('+') || raw.startsWith('00');
    if (hasPlus) return true;
    // "1 000 000 requests" and bare long numbers are amounts until something says "phone".
    if ((plainNumber || thousands) && !PHONE_CONTEXT.test(before)) continue;
    return true;
  }
  return false;
}

// "me / my / our", not "I / we": "can I reach your team at 555-0100?" asks about the company.
const FIRST_PERSON_OBJECT =
  /\b(my|me|mine|our|us|mi|mis|me|conmigo|nuestro|nuestra|mon|ma|mes|moi|m'|notre|nos|mein|meine|meiner|meinen|mich|mir|unser|unsere|meu|minha|comigo|nosso|nossa)\b/;
/** Leaves contact details: an email or phone number, unless the message asks whether it is ours. */
function leavesContactDetails(t: string): boolean {
  const has = hasEmail(t) || EMAIL_SPELLED.test(t) || looksLikePhone(t);
  if (!has) return false;
  // A question that never says "me/my" asks about the details ("is info@acme.com your support
  // address?", "is 1-800-555-0100 the sales line?"); it does not leave the visitor's own.
  if (t.includes('?') && !FIRST_PERSON_OBJECT.test(t)) return false;
  // "How do I rewrite bob@mail.acme.com to bob@acme.com on my server?" asks for instructions about an
  // address; a visitor who wants to be written to says so (the phrases below).
  if (ASKS_HOW_TO.test(t) && t.includes('?')) return false;
  return true;
}
const ASKS_HOW_TO = /^(how (do|can|should|could|would) (i|we)|how to)\b/;

// --- Phrases, per category and language ----------------------------------------------------------
// Built from the categories above, not from the test messages: each pattern names who acts, what
// they should do and towards whom, so "can customers contact me through the widget?" stays false.

const AGENT =
  '(you|u|you guys|someone|somebody|some one|anyone|any one|a person|a human|your team|the team|sales|your sales team|the sales team|sales team|a sales ?rep|a rep|rep|a representative|an agent|a consultant|an advisor|a specialist|one of your (people|team|reps|consultants|agents|experts))';
const CONTACT_VERB =
  '(call|phone|ring|contact|email|e-mail|mail|text|message|reach( out to)?|get in touch with|get back to|follow up with|write to|call back)';

const EN: RegExp[] = [
  // someone / you + (can|should|to) + contact me
  new RegExp(`\\b${AGENT}\\b[^.?!]{0,30}?\\b${CONTACT_VERB} (me|us)\\b`),
  // imperative: "call me", "please contact us", "pls email me at…"
  new RegExp(
    `(^|[.!?,;:]\\s*|\\b(please|pls|plz|kindly|just|can you|could you|would you|will you|then|and)\\s+)${CONTACT_VERB} (me|us)\\b(?! (page|form|link|button|section|tab|menu|through|via|from|using|with)\\b)`,
  ),
  /\b(call|contact|email|e-mail|text|reach|ring) me (at|on|back|asap|directly|tomorrow|today|this (week|afternoon|morning)|whenever|when you can|please|pls)\b/,
  // wants to be contacted
  /\b(like|want|wish|need|love|prefer|request|requesting|get|schedule|book|arrange)\b[^.?!]{0,25}?\b(to be (contacted|called|reached|called back)|a (call ?back|phone call|call|quick call|meeting|consultation|sales call)|some ?one to (call|contact|reach|email|get in touch))\b(?! (stack|stacks|site|graph|chain|count|signature|frame|log|api|function|method|to|of|from|returns|is|was))/,
  /\b(you|u) can (reach|contact|call|email|text) me\b/,
  /\bgive (me|us) a (call|ring|buzz|shout)\b/,
  /\bmy (phone|phone number|number|cell|cell number|mobile|mobile number|email|e-mail|email address|whatsapp) (is|:)/,
  // talk to a person
  /\b(talk|speak|chat|get in touch)\s+(to|with)\s+(a |an |the |your |some |one of your )?(real |actual |live |human )?(human|humans|person|people|someone|somebody|agent|representative|rep|sales|salesperson|sales team|sales rep|account manager|consultant|advisor|adviser|specialist|expert|operator|staff|employee|engineer from your team)\b/,
  /\b(human|person|real person|someone|somebody|agent|rep)\b[^.?!]{0,15}\b(i|we) (can|could) (talk|speak|chat) (to|with)\b/,
  /\b(connect|transfer|put) (me|us) (through )?(to|with) (a |an |the |your )?(human|person|agent|sales|someone|representative|rep|operator)\b/,
  // quote / estimate / proposal
  /\b(get|need|want|like|request|requesting|send|give|prepare|receive|obtain|ask for|asking for|can i have|could i have|provide|looking for|interested in)\b[^.?!]{0,25}?\b((a |an |the |your |free |rough |custom |formal |cost |price |pricing )*(quote|quotation)\b(?! (mark|marks|character|characters|char|sign|symbol|block|style))|(a |an |your |free |rough |custom |formal )+(cost |price |pricing )?(estimate|proposal|offer)\b(?! of (how|the|memory|time|size|disk|runtime)))/,
  /\b(quote|quotation|estimate|proposal) (for|on) (my|our|a|an|the|\d)/,
  // demo / trial set-up
  // (not across a preposition: "do I need a credit card *for* the trial?" asks about the trial)
  /\b(book|schedule|set ?up|setup|arrange|organi[sz]e|request|get|see|want|need|like|interested in|can i have|could i have|give (me|us)|show (me|us))\b(?:(?!\b(?:for|during|before|after|with|without|in|on|of|about)\b)[^.?!]){0,20}?\b(a |an |the |your |product |live |quick |short |personal |personali[sz]ed |free |guided |private )*(demo|demonstration|walkthrough|walk-through|trial|pilot|proof of concept|poc)\b(?! (video|account|accounts|page|site|data|mode|key|license|licence|period|version|link|recording|environment|server|expire|expires|expired|ends))/,
  // pricing conversation
  /\b(discuss|talk about|talk through|negotiate|go over|chat about|a conversation about|a call about|questions? about)\b[^.?!]{0,20}?\b(pricing|prices|price|costs|rates|licensing|licenses|a deal|contract|enterprise|discount|discounts)\b/,
  /\b(need|want|get|interested in|looking for|like|request|ask about|asking about|inquire about|enquire about)\b[^.?!]{0,20}?\b(custom|enterprise|volume|bulk|special|tailored|team|group|nonprofit|education) (pricing|price|prices|quote|plan|license|licensing|deal|discount|offer|rates)\b/,
  /\binterested in (buying|purchasing|licensing|a license|licenses|your (product|service|solution|platform)|an enterprise|signing a contract|working with you)\b/,
];

const ES: RegExp[] = [
  /\b(llam(a|e|en)me|llamenme|contact(a|e|en)me|contactenme|escrib(a|e|an)me|escribanme|comuniquen?se conmigo|pongan?se en contacto conmigo|contactarme|llamarme|escribirme|devolverme la llamada|rellamarme)\b/,
  /\bme (pueden|puede|podrian|podria|podrias|puedes|pudieran|podran) (llamar|contactar|escribir|marcar|devolver la llamada|enviar un (correo|email|mail|mensaje)|mandar un (correo|email|mail|mensaje))\b/,
  /\bque me (llamen|contacten|escriban|llame|contacte|escriba|marquen|devuelvan la llamada)\b/,
  /\b(quiero|quisiera|me gustaria|necesito|solicito|pido)\b[^.?!]{0,25}?\b(ser contactad[oa]s?|una llamada|que alguien me|que me)\b/,
  /\bmi (correo|email|e-mail|mail|telefono|numero|celular|movil|whatsapp|cel) (es|:)/,
  /\bhablar con (un |una |el |la |alguien|algun |su |tu |los |sus )?\s*(persona|humano|agente|asesor|asesora|ejecutivo|ejecutiva|vendedor|vendedora|comercial|ventas|representante|alguien|equipo de ventas|especialista|consultor|experto)/,
  /\b(quiero|quisiera|me gustaria|necesito|solicito|solicitar|pedir|pido|enviar|envien|enviarme|mandar|manden|mandarme|hacer|hacerme|dar|darme|recibir|obtener|tener|podrian|pueden|puedo)\b[^.?!]{0,25}?\b(cotizacion|cotizar|presupuesto|propuesta comercial|propuesta)\b/,
  /\b(quiero|quisiera|me gustaria|necesito|solicito|solicitar|pedir|agendar|programar|reservar|ver|tener|hacer|configurar|organizar|activar|montar|coordinar)\b[^.?!]{0,25}?\b(una |la |un |el )?(demo|demostracion|prueba gratuita|periodo de prueba|version de prueba|prueba piloto|piloto)\b(?! (incluye|tiene|dura|caduca|vence))/,
  /\b(hablar|conversar|discutir|negociar|platicar)\b[^.?!]{0,20}?\b(precio|precios|tarifa|tarifas|costos?|licencias?|descuentos?|contrato|plan empresarial)\b/,
  /\b(precio|precios|plan|licencia|tarifa)s? (empresarial|corporativ[oa]|personalizad[oa]|por volumen|especial)(es)?\b[^?]*$/,
];

const FR: RegExp[] = [
  /\b(appelez|rappelez|contactez|recontactez|ecrivez|telephonez)[- ]moi\b/,
  /\b(appelle|rappelle|contacte|ecris)[- ]moi\b/,
  /\b(pouvez|pourriez|peux|pourrais|voulez|pourrez)[- ](vous|tu|quelqu'un) me (rappeler|contacter|recontacter|appeler|joindre|telephoner|ecrire|envoyer un (mail|email|e-mail|courriel|message))\b/,
  /\b(merci|svp|s'il vous plait|je souhaite|j'aimerais|je voudrais|je veux|besoin) (de |d')?(me |m'|etre )(rappeler|contacter|recontacter|appeler|joindre|telephoner|ecrire|contacte|rappele|recontacte)e?s?\b/,
  /\b(etre|soit|sois) (contacte|rappele|recontacte|appele)e?s?\b/,
  /\bqu'(on|un conseiller|un commercial|quelqu'un) me (rappelle|contacte|recontacte|appelle|joigne|telephone|ecrive)\b/,
  /\b(un rappel|un appel|un rendez-vous|un rdv|rendez vous)\b[^.?!]{0,15}?\b(telephonique|svp|s'il vous plait|avec (un|une|vous|votre))\b/,
  /\bmon (numero|mail|email|e-mail|adresse (e-?mail|mail)|telephone|tel|portable|mobile|whatsapp) (est|c'est|:)/,
  /\bparler (a|avec) (un |une |quelqu'un|quelqu un|votre |vos |le |la |l'|des )?\s*(vrai |vraie |veritable )?(humain|personne|conseiller|conseillere|agent|commercial|commerciale|vendeur|quelqu'un|quelqu un|service commercial|equipe commerciale|responsable|representant|expert|specialiste)/,
  /\b(voudrais|aimerais|veux|souhaite|souhaiterais|besoin|demander|demande|recevoir|obtenir|envoyer|envoyez|faire|etablir|avoir|pouvez-vous|pourriez-vous)\b[^.?!]{0,25}?\b(devis|estimation|proposition commerciale|cotation|offre tarifaire)\b/,
  /\b(voudrais|aimerais|veux|souhaite|souhaiterais|besoin|planifier|programmer|organiser|reserver|voir|avoir|obtenir|demander|mettre en place|configurer|activer)\b[^.?!]{0,25}?\b(une |la |un |le )?(demo|demonstration|essai gratuit|periode d'essai|version d'essai|pilote)\b(?! (comprend|inclut|contient|dure|expire))/,
  /\b(discuter|parler|negocier|echanger)\b[^.?!]{0,20}?\b(prix|tarifs?|tarification|couts?|licences?|remises?|contrat|offre entreprise)\b/,
  /\b(tarif|prix|offre|licence)s? (entreprise|sur mesure|personnalisee?s?|volume|groupe)\b[^?]*$/,
];

const DE: RegExp[] = [
  /\b(rufen sie|ruft|ruf|rufe) (mich|uns)( bitte)?( (heute|morgen|gerne|gern|zuruck|an))*\b/,
  /\b(kontaktieren sie|kontaktiert|kontaktier|schreiben sie|schreibt|schreib) (mich|uns)\b/,
  /\b(melden sie sich|meldet euch|meld dich|melde dich)( bitte)? bei (mir|uns)\b/,
  /\b(mich|uns)( [a-z]+){0,2} (anrufen|zuruckrufen|kontaktieren|anschreiben)\b/,
  /\b(ruckruf|ruckrufbitte|anruf|telefontermin|beratungsgesprach|beratungstermin|termin)\b[^.?!]{0,20}?\b(bitte|vereinbaren|mochte|hatte|moglich|gewunscht|erwunscht)\b/,
  /\b(mochte|mochten|hatte gern|hatte gerne|wurde gern|wurde gerne|bitte um|wunsche)\b[^.?!]{0,25}?\b(ruckruf|kontaktiert werden|angerufen werden|zuruckgerufen werden|einen anruf|ein gesprach|einen termin)\b/,
  /\b(mir|uns) eine (e-?mail|mail|nachricht|sms) (schicken|senden|schreiben)\b/,
  /\bmeine (nummer|telefonnummer|handynummer|rufnummer|e-?mail|mail|e-mail-adresse|emailadresse|mailadresse) (ist|lautet|:)/,
  /\b(mit|an) (einem |einer |jemandem|ihrem |ihrer |dem |der |einen |eine )?\s*(echten |realen )?(menschen|mensch|mitarbeiter|mitarbeiterin|berater|beraterin|vertrieb|verkauf|vertriebsmitarbeiter|ansprechpartner|ansprechpartnerin|person|jemandem|jemand|vertriebsteam|sales|experten|spezialisten)\b[^.?!]{0,20}?\b(sprechen|reden|telefonieren|verbinden|weiterleiten|wenden)\b/,
  /\b(verbinden|weiterleiten) sie mich\b/,
  /\b(mochte|mochten|hatte gern|hatte gerne|hatten gern|hatten gerne|brauche|brauchen|benotige|benotigen|bitte um|erstellen|schicken|senden|zusenden|erhalten|bekommen|anfordern|einholen)\b[^.?!]{0,25}?\b(ein |einen |ihr )?(angebot|kostenvoranschlag|preisangebot|kostenschatzung|individuelles angebot)\b/,
  /\b(angebot|kostenvoranschlag|preisangebot)\b[^.?!]{0,25}?\b(erstellen|schicken|senden|zusenden|machen|bekommen|erhalten|anfordern)\b/,
  /\b(mochte|mochten|hatte gern|hatte gerne|hatten gern|hatten gerne|brauche|brauchen|vereinbaren|buchen|planen|sehen|einrichten|anfragen|bekommen|erhalten|zeigen|organisieren)\b[^.?!]{0,25}?\b(eine |die |einen |den )?(demo|vorfuhrung|produktdemo|testphase|testversion|testzugang|probeversion|testlauf|pilotprojekt)\b/,
  /\b(demo|vorfuhrung|produktdemo|testzugang|testphase)\b[^.?!]{0,25}?\b(vereinbaren|buchen|planen|einrichten|anfragen|bekommen|zeigen)\b/,
  /\b(preise|preis|kosten|lizenz|lizenzen|konditionen|rabatt|rabatte|vertrag)\b[^.?!]{0,20}?\b(sprechen|reden|verhandeln|besprechen|unterhalten)\b/,
  /\b(uber|die) (preise|konditionen|lizenzen|kosten) (sprechen|reden|verhandeln|besprechen)\b/,
];

const PT: RegExp[] = [
  /\b(me lig(a|ue|uem)|lig(a|ue|uem)[- ]me|liguem para mim|ligue para mim|me (contat|contact)(e|em|a)|(contat|contact)(e|em)[- ]me|entr(e|em) em contato comigo|fale comigo|falem comigo|me retorn(e|em|a))\b/,
  /\bme (chama|chame|chamem|manda|mande|mandem|envie|enviem) (no |pelo |um |uma )?(whats|whatsapp|zap|email|e-mail|mensagem|sms)\b/,
  /\b(pode|podem|poderia|poderiam|podes|consegue|conseguem) me (ligar|contatar|contactar|chamar|retornar|enviar um (email|e-mail)|mandar um (email|e-mail))\b/,
  /\b(quero|queria|gostaria|preciso|solicito)\b[^.?!]{0,25}?\b(ser contatad[oa]s?|ser contactad[oa]s?|que me (liguem|ligue|contatem|contate|retornem|chamem)|que entrem em contato|uma ligacao|um retorno)\b/,
  /\bmeu (email|e-mail|telefone|numero|celular|whats|whatsapp|zap|contato) (e|eh|:)/,
  /\bfalar com (um |uma |o |a |alguem|algum |seu |sua |os |as )?\s*(pessoa|humano|atendente|consultor|consultora|vendedor|vendedora|representante|agente|alguem|especialista|comercial|equipe de vendas|equipe comercial|vendas|setor comercial|gerente)/,
  /\b(quero|queria|gostaria|preciso|pedir|solicitar|solicito|receber|enviar|envia|enviem|mandar|mandem|fazer|faz|pode|podem|poderia|poderiam|ter)\b[^.?!]{0,25}?\b(orcamento|cotacao|proposta comercial|proposta)\b/,
  /\b(quero|queria|gostaria|preciso|agendar|marcar|solicitar|ver|ter|fazer|configurar|ativar|organizar)\b[^.?!]{0,25}?\b(uma |a |um |o )?(demo|demonstracao|teste gratis|teste gratuito|periodo de teste|versao de teste|avaliacao gratuita|piloto)\b(?! (inclui|tem|dura|expira|vence))/,
  /\b(conversar|falar|negociar|discutir)\b[^.?!]{0,20}?\b(precos?|valores|planos?|licencas?|descontos?|condicoes|contrato)\b/,
];

const ALL_PATTERNS = [...EN, ...ES, ...FR, ...DE, ...PT];

export function detectLeadIntent(message: string): boolean {
  const t = foldForIntent(message);
  if (t.length === 0) return false;
  return leavesContactDetails(t) || ALL_PATTERNS.some((p) => p.test(t));
}
