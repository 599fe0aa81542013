/**
 * A visitor's chat shorthand in full words, English only: "wat r ur prices", "wher r u", "do u deliver",
 * "opening times pls". The words are what every rule of the answer reads — stop words, the questions
 * about the business and its contact details, the search — and "u", "ur", "wat" are none a page holds:
 * "wat r ur prices" was declined, "do u deliver" answered with a sentence sharing "pay". A closed list of
 * the shorthand people type; a single letter only as a word of its own ("chmod u+x", "R" the language
 * and "r.squared" stay as they are: "r" only beside a pronoun or a question word).
 */
const WORDS: [RegExp, string][] = [
  [/\bu\b(?![+=\-./'’])/g, 'you'],
  [/\bur\b(?![+=\-./'’])/g, 'your'],
  [/\by'?all\b/g, 'you'],
  [/\bwat\b/g, 'what'],
  [/\bwhr\b|\bwher\b/g, 'where'],
  [/\bpl[sz]\b/g, 'please'],
  [/\bthx\b|\bthnx\b|\btnx\b/g, 'thanks'],
  [/\btmrw\b|\btmr\b|\btmw\b|\b2moro\b|\b2morrow\b/g, 'tomorrow'],
  [/\b2day\b/g, 'today'],
  [/\b2nite\b|\btonite\b/g, 'tonight'],
  [/\bb4\b/g, 'before'],
  [/\bcuz\b|\bcoz\b/g, 'because'],
  [/\bppl\b/g, 'people'],
  [/\bmsg\b/g, 'message'],
  [/\bbday\b/g, 'birthday'],
  [/\bw\/(?=\s)/g, 'with'],
];
// "r" is "are" beside a pronoun or a question word ("r u open", "wat r ur prices", "how r the rooms").
const ARE =
  /(?<=\b(?:what|where|when|how|who|why|which|wat|wher|there|they|we|you|u)\s+)r\b(?![+=\-./'’])|\br(?=\s+(?:u|you|ur|your|we|they|there|these|those|the|ya)\b)/g;

/** The message with its shorthand in full words; in lower case only ("R" of statistics, "U" of a size stay). */
export function expandChatSpeak(message: string): string {
  let text = message.replace(ARE, 'are');
  for (const [re, full] of WORDS) text = text.replace(re, full);
  return text;
}
