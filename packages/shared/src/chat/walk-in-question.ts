import { foldForIntent } from '../intent/classifier.ts';

/**
 * A question whether visitors can come without booking ("Do you accept walk-ins?", "can I just turn up?",
 * "¿Atendéis sin cita?") is answered by a sentence that says so either way: "We keep a few tables free
 * for walk-ins every evening", "there is no need to book except for groups", "Emergencies are seen
 * without an appointment", "Atendemos sin cita solo si hay hueco libre" — and declined where none does:
 * "walk-in" is read as "walk", and six sites answered with how many minutes' walk they are from the
 * station. English, Spanish, French, German and Portuguese, accents folded.
 */
const ASKS_FOR_WALK_IN = new RegExp(
  [
    String.raw`\bwalk[- ]?ins?\b(?! (?:shower|showers|wardrobe|closet|fridge|bath|cupboard|freezer))`,
    String.raw`\b(?:can|could|may) (?:i|we) just (?:turn up|show up|pop in|drop in|come in|walk in|come along)\b`,
    String.raw`\bwithout (?:an? )?(?:appointment|booking|reservation)\W*$`,
    String.raw`\b(?:atendeis|atienden|atiende) sin cita\b|\bsin (?:cita|reserva) previa\b|\bsans rendez-vous\b|\bohne (?:termin|anmeldung|voranmeldung)\b|\bsem marcacao\b`,
  ].join('|'),
);

const STATES_WALK_IN =
  /\bwalk[- ]?ins?\b|\bdrop[- ]in\b|\bwithout (?:an? )?(?:appointment|booking|reservation)\b|\bno (?:need to book|appointment (?:is )?(?:needed|necessary)|booking (?:is )?(?:needed|necessary|required))\b|\bjust (?:turn|show) up\b|\bsin cita\b|\bsans rendez-vous\b|\bohne termin\b|\bsem marcacao\b/;

export function asksForWalkIn(message: string): boolean {
  return ASKS_FOR_WALK_IN.test(foldForIntent(message));
}

/** A text that says whether visitors can come without booking. */
export function statesWalkIn(text: string): boolean {
  return STATES_WALK_IN.test(foldForIntent(text));
}

/** The words searched beside such a question's own (as context words). */
export const WALK_IN_SEARCH_WORDS = 'walk-ins drop-in appointment booking book need';
