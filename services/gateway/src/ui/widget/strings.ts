/**
 * What the widget says, in the language of the page it sits on: the script tag's data-lang, else the
 * page's <html lang>, in the five languages the answers are given in (English otherwise). A Spanish
 * shop's visitors read "Escriba su pregunta…", not "Type your question…". The operator's own title
 * and greeting (console settings, data-title, data-greeting) are shown as written.
 */
export type WidgetLanguage = 'en' | 'es' | 'fr' | 'de' | 'pt';

const EN = {
  title: 'Chat with us',
  greeting: 'Hi! Ask me anything about this site.',
  open: 'Open chat',
  hide: 'Hide chat',
  close: 'Close chat',
  conversation: 'Conversation',
  placeholder: 'Type your question…',
  yourMessage: 'Your message',
  send: 'Send',
  sources: 'Sources',
  you: 'You: ',
  tooFast: 'You are sending messages too quickly. Please wait a moment and try again.',
  failed: 'Sorry, something went wrong. Please try again.',
  suggested: 'Suggested questions',
  helpful: 'Helpful answer',
  notHelpful: 'Not helpful',
  rate: 'Rate this answer',
  leadIntro: 'Leave your details and we will get back to you.',
  name: 'Name',
  email: 'Email',
  phone: 'Phone',
  message: 'Message',
  sendDetails: 'Send my details',
  leadFailed: 'Your details could not be sent. Please try again.',
  thanks: (name: string) => `Thank you, ${name}! We will be in touch soon.`,
};
export type WidgetStrings = typeof EN;

const STRINGS: Record<WidgetLanguage, WidgetStrings> = {
  en: EN,
  es: {
    title: 'Chatee con nosotros',
    greeting: '¡Hola! Pregúnteme lo que quiera sobre este sitio.',
    open: 'Abrir el chat',
    hide: 'Ocultar el chat',
    close: 'Cerrar el chat',
    conversation: 'Conversación',
    placeholder: 'Escriba su pregunta…',
    yourMessage: 'Su mensaje',
    send: 'Enviar',
    sources: 'Fuentes',
    you: 'Usted: ',
    tooFast: 'Está enviando mensajes demasiado rápido. Espere un momento y vuelva a intentarlo.',
    failed: 'Lo sentimos, algo ha fallado. Vuelva a intentarlo.',
    suggested: 'Preguntas sugeridas',
    helpful: 'Respuesta útil',
    notHelpful: 'No es útil',
    rate: 'Valore esta respuesta',
    leadIntro: 'Déjenos sus datos y nos pondremos en contacto con usted.',
    name: 'Nombre',
    email: 'Correo electrónico',
    phone: 'Teléfono',
    message: 'Mensaje',
    sendDetails: 'Enviar mis datos',
    leadFailed: 'No se han podido enviar sus datos. Vuelva a intentarlo.',
    thanks: (name) => `¡Gracias, ${name}! Nos pondremos en contacto pronto.`,
  },
  fr: {
    title: 'Discutez avec nous',
    greeting: 'Bonjour ! Posez-moi vos questions sur ce site.',
    open: 'Ouvrir le chat',
    hide: 'Masquer le chat',
    close: 'Fermer le chat',
    conversation: 'Conversation',
    placeholder: 'Posez votre question…',
    yourMessage: 'Votre message',
    send: 'Envoyer',
    sources: 'Sources',
    you: 'Vous : ',
    tooFast: 'Vous envoyez des messages trop vite. Patientez un instant puis réessayez.',
    failed: 'Désolé, une erreur est survenue. Veuillez réessayer.',
    suggested: 'Questions suggérées',
    helpful: 'Réponse utile',
    notHelpful: 'Pas utile',
    rate: 'Évaluez cette réponse',
    leadIntro: 'Laissez vos coordonnées et nous vous recontacterons.',
    name: 'Nom',
    email: 'E-mail',
    phone: 'Téléphone',
    message: 'Message',
    sendDetails: 'Envoyer mes coordonnées',
    leadFailed: "Vos coordonnées n'ont pas pu être envoyées. Veuillez réessayer.",
    thanks: (name) => `Merci, ${name} ! Nous vous recontacterons bientôt.`,
  },
  de: {
    title: 'Chatten Sie mit uns',
    greeting: 'Hallo! Fragen Sie mich alles über diese Website.',
    open: 'Chat öffnen',
    hide: 'Chat ausblenden',
    close: 'Chat schließen',
    conversation: 'Unterhaltung',
    placeholder: 'Ihre Frage…',
    yourMessage: 'Ihre Nachricht',
    send: 'Senden',
    sources: 'Quellen',
    you: 'Sie: ',
    tooFast: 'Sie senden Nachrichten zu schnell. Bitte warten Sie einen Moment und versuchen Sie es erneut.',
    failed: 'Entschuldigung, etwas ist schiefgelaufen. Bitte versuchen Sie es erneut.',
    suggested: 'Vorgeschlagene Fragen',
    helpful: 'Hilfreiche Antwort',
    notHelpful: 'Nicht hilfreich',
    rate: 'Diese Antwort bewerten',
    leadIntro: 'Hinterlassen Sie Ihre Kontaktdaten, wir melden uns bei Ihnen.',
    name: 'Name',
    email: 'E-Mail',
    phone: 'Telefon',
    message: 'Nachricht',
    sendDetails: 'Meine Daten senden',
    leadFailed: 'Ihre Daten konnten nicht gesendet werden. Bitte versuchen Sie es erneut.',
    thanks: (name) => `Vielen Dank, ${name}! Wir melden uns bald.`,
  },
  pt: {
    title: 'Fale connosco',
    greeting: 'Olá! Pergunte-me o que quiser sobre este site.',
    open: 'Abrir o chat',
    hide: 'Ocultar o chat',
    close: 'Fechar o chat',
    conversation: 'Conversa',
    placeholder: 'Escreva a sua pergunta…',
    yourMessage: 'A sua mensagem',
    send: 'Enviar',
    sources: 'Fontes',
    you: 'Você: ',
    tooFast: 'Está a enviar mensagens demasiado depressa. Aguarde um momento e tente novamente.',
    failed: 'Desculpe, algo correu mal. Tente novamente.',
    suggested: 'Perguntas sugeridas',
    helpful: 'Resposta útil',
    notHelpful: 'Não é útil',
    rate: 'Avalie esta resposta',
    leadIntro: 'Deixe os seus dados e entraremos em contacto consigo.',
    name: 'Nome',
    email: 'E-mail',
    phone: 'Telefone',
    message: 'Mensagem',
    sendDetails: 'Enviar os meus dados',
    leadFailed: 'Não foi possível enviar os seus dados. Tente novamente.',
    thanks: (name) => `Obrigado, ${name}! Entraremos em contacto em breve.`,
  },
};

/** The language of a tag such as "es", "es-MX" or "pt-BR"; English when it is none of the five. */
export function widgetLanguage(tag: string | null | undefined): WidgetLanguage {
  const primary = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return primary in STRINGS ? (primary as WidgetLanguage) : 'en';
}

let current: WidgetStrings = EN;

/** Chosen once, when the widget starts: one widget per page. */
export function useLanguage(lang: WidgetLanguage): void {
  current = STRINGS[lang];
}

/** The widget's words in the chosen language. */
export function t(): WidgetStrings {
  return current;
}
