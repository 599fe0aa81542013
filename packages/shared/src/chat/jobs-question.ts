import { foldForIntent } from '../intent/classifier.ts';

/**
 * A question whether the business takes people on ("are you hiring?", "any job vacancies?", "can I work
 * for you?", "¿buscáis personal?") is answered by a page that says it does: its vacancies, a "Join our
 * team" section, its volunteers. Its words mean other things on most sites — a museum answered "are you
 * hiring?" with its venue hire, a plumber "any job vacancies?" with "when the job is finished", a shop
 * "can I work for you?" with its delivery table — so, as for how the business is paid
 * (payment-question.ts), what the answer must state means the same on every site, and a site that says
 * nothing of it declines. English, Spanish, French, German and Portuguese, accents folded.
 */
const ASKS_FOR_JOBS = new RegExp(
  [
    String.raw`\b(?:are|r) (?:you|u|y'all)(?: guys)? (?:hiring|recruiting|taking on (?:staff|people)|looking for (?:staff|people|workers|help|volunteers))\b`,
    String.raw`\b(?:any|are there|do (?:you|u) have|got) (?:any )?(?:job|jobs|vacancies|vacancy|openings|positions|volunteering|work experience|apprenticeships?|internships?)\b`,
    String.raw`\b(?:job|staff) (?:vacancies|vacancy|openings?|opportunities)\b|\bjobs? (?:available|going)\b|\bcareers?\W*$|\b(?:careers|vacancies) (?:page|at)\b`,
    String.raw`\b(?:can|could|may) (?:i|we) (?:work|volunteer) (?:for|with|at) (?:you|u|your)\b|\b(?:work|volunteer) (?:for|at) (?:you|u)\W*$|\bwork here\W*$`,
    String.raw`\b(?:looking for|want|need) (?:a )?(?:job|work|summer job|part-time job)\b|\bapply for (?:a |the )?(?:job|position|vacancy)\b|\bjoin (?:your|the) team\b|\bwork experience\b|\bvolunteer\W*$|\b(?:take|need|want|use) (?:on )?(?:any )?(?:volunteers|apprentices|interns|new staff)\b`,
    String.raw`\b(?:buscais|buscan|busca) (?:personal|trabajadores|gente)\b|\b(?:ofertas de (?:empleo|trabajo)|vacantes)\b|\btrabajar (?:con|en) (?:vosotros|ustedes)\b`,
    String.raw`\brecrutez[- ]vous\b|\boffres? d'emploi\b|\btravailler (?:chez|avec) vous\b`,
    String.raw`\b(?:stellenangebote|offene stellen|stellenausschreibungen)\b|\bsuchen sie (?:mitarbeiter|personal|aushilfen)\b|\bbei ihnen arbeiten\b`,
    String.raw`\b(?:estao|esta) (?:contratando|recrutando)\b|\bvagas? de (?:emprego|trabalho)\b|\btrabalhar (?:com|na|no) (?:voces|vos)\b`,
  ].join('|'),
);

/** Said of taking people on: vacancies, careers, "we're hiring", "join our team", volunteering, or applying to work there. */
const STATES_JOBS = new RegExp(
  [
    String.raw`\b(?:vacancies|vacancy|careers|we(?:'re| are) (?:hiring|recruiting|looking for)|join (?:our|the) team|recruitment|job openings?|open positions?|work (?:for|with) us|volunteers?|volunteering|apprenticeships?|internships?|work experience)\b`,
    String.raw`\b(?:trabaja con nosotros|empleo|vacantes|offres? d'emploi|nous recrutons|rejoignez|stellenangebote|wir suchen|karriere|vagas|trabalhe conosco)\b`,
  ].join('|'),
);

// Said only of the business's own people: "a guided tour with a volunteer for £40" is no offer of work.
const OFFERS_JOBS =
  /\b(?:vacanc|careers|hiring|recruit|join (?:our|the) team|job openings?|open positions?|work (?:for|with) us|apply|volunteering|become a volunteer|volunteer with us|(?:love|like|glad) to hear from you|trabaja con nosotros|rejoignez|wir suchen|trabalhe conosco)/;

export function asksForJobs(message: string): boolean {
  return ASKS_FOR_JOBS.test(foldForIntent(message));
}

/** A text that says the business takes people on: a word of jobs with a word of offering or applying. */
export function statesJobs(text: string): boolean {
  const folded = foldForIntent(text);
  return STATES_JOBS.test(folded) && OFFERS_JOBS.test(folded);
}

/** What names a page or section for jobs ("/careers", "Join our team", "Volunteering"); stated-questions.ts namedFor. */
export const JOBS_NAME =
  /\b(?:jobs|careers?|vacancies|join (?:our|the) team|work (?:for|with) us|volunteer(?:ing|s)?|recruitment|empleo|emploi|karriere|stellen|vagas)\b/;

/** The words searched beside a jobs question's own (as context words). */
export const JOBS_SEARCH_WORDS = 'vacancies careers jobs hiring recruiting team volunteers volunteering apply';
