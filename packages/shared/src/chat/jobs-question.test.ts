import { describe, expect, it } from 'vitest';
import { asksForJobs, JOBS_NAME, statesJobs } from './jobs-question.ts';
import { namedFor } from './stated-questions.ts';

describe('jobs questions', () => {
  it.each([
    'are you hiring?',
    'r u hiring',
    'Are you hiring cleaners?',
    'Do you have any job vacancies?',
    'any jobs going?',
    'can I work for you?',
    'how do I become a volunteer',
    'Do you take volunteers?',
    "I'm looking for a job",
    'careers?',
    '¿Buscáis personal?',
    'Recrutez-vous ?',
    'Haben Sie Stellenangebote?',
    'Vocês estão contratando?',
  ])('%j asks whether the business takes people on', (message) => {
    expect(asksForJobs(message)).toBe(true);
  });

  it.each([
    'Can I hire the hall for a party?',
    'How long does a job like this take?',
    'Can you do a small job for me?',
    'Do you work on Saturdays?',
    'How do I run a background job with Django?',
    'Is the job finished today?',
  ])('%j does not', (message) => {
    expect(asksForJobs(message)).toBe(false);
  });

  it('finds a page offering work or volunteering, not one that names a volunteer', () => {
    for (const text of [
      'Join our team: We are always looking for reliable cleaners.',
      "We're hiring! See our current vacancies.",
      'Volunteering: Most of our front-of-house team are volunteers.',
      'If you can give one afternoon a week, we would love to hear from you: email volunteers@museum.example.',
    ])
      expect(statesJobs(text), text).toBe(true);
    for (const text of [
      'Groups can book a guided tour with a volunteer for £40. Please book by emailing groups@museum.example.',
      'The net loft can be hired for evening receptions of up to 60 guests.',
      'You can pay by card when the job is finished.',
    ])
      expect(statesJobs(text), text).toBe(false);
  });

  it('knows a page or section named for jobs', () => {
    const namesJobs = (url: string, title: string, heading?: string) => namedFor(JOBS_NAME)({ url, title, heading });
    expect(namesJobs('https://x.example/careers', 'Careers')).toBe(true);
    expect(namesJobs('https://x.example/contact.html', 'Contact', 'Join our team')).toBe(true);
    expect(namesJobs('https://x.example/contact.html', 'Contact', 'Venue hire')).toBe(false);
  });
});
