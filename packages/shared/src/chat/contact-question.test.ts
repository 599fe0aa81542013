import { describe, expect, it } from 'vitest';
import { asksForContact, statesContact } from './contact-question.ts';

describe('contact questions', () => {
  it.each([
    ['Where are you located?', 'address'],
    ['where are you', 'address'],
    ['Where is your shop?', 'address'],
    ['Where is the practice?', 'address'],
    ["What's your address?", 'address'],
    ['whats the address', 'address'],
    ['what is ur address', 'address'],
    ['¿Dónde están?', 'address'],
    ['Où êtes-vous ?', 'address'],
    ['Wo finde ich Sie?', 'address'],
    ['Onde fica a loja?', 'address'],
    ["what's your phone number", 'phone'],
    ['What is the phone number?', 'phone'],
    ['¿Cuál es su teléfono?', 'phone'],
    ['Quel est votre numéro de téléphone ?', 'phone'],
    ['Wie ist Ihre Telefonnummer?', 'phone'],
    ['What is your email?', 'email'],
    ['How can I reach you?', 'any'],
    ['opening hours?', 'hours'],
    ['What are your hours?', 'hours'],
    ['When are you open?', 'hours'],
    ['What time do you close?', 'hours'],
    ['Are you open now?', 'hours'],
    ['is the shop open today?', 'hours'],
    ['¿Cuál es vuestro horario?', 'hours'],
    ['Wie sind Ihre Öffnungszeiten?', 'hours'],
    ['Comment vous contacter ?', 'any'],
    // The words alone, as a chat box is typed into.
    ['phone number?', 'phone'],
    ['contact number', 'phone'],
    ['email address?', 'email'],
    ['address?', 'address'],
    // The way there, which the address gives ("how do I get there?" was answered with a restaurant's booking policy).
    ['How do I get there?', 'address'],
    ['how can we find you', 'address'],
    ['directions?', 'address'],
    ['¿Cómo llego?', 'address'],
    ['Wie komme ich zu Ihnen?', 'address'],
  ])('%j asks for the business’s %s', (message, kind) => {
    expect(asksForContact(message)).toBe(kind);
  });

  it.each([
    'How do I validate an email address in a form?',
    'How do I send an email with Django?',
    'Where are you storing my data?',
    'Where is your config file on Linux?',
    'What format should a phone number field use?',
    'How do I get the remote address of a socket?',
    'What is the address of the server in the config?',
    "What's the location of the log files?",
    // A day named is asked like any question: its word is searched with what pages call it.
    'Are you open on Saturday?',
    'What time do you close on Friday?',
    'When do you open on weekdays?',
    'How many hours does the backup take?',
    'phone number format',
    'email address validation',
    'How do I get the path of the current file?',
    'How to get the directions of a vector in numpy?',
    'How do I get there by bus?',
  ])('%j does not', (message) => {
    expect(asksForContact(message)).toBeUndefined();
  });

  it('finds what is asked for in a page’s text', () => {
    expect(statesContact('Harbour Bikes, 14 Clarence Esplanade, Southsea, Portsmouth PO5 3PB.', 'address')).toBe(true);
    expect(statesContact('Besuchen Sie uns: Hauptstraße 5, 10115 Berlin.', 'address')).toBe(true);
    expect(statesContact('Visit us at 350 Fifth Avenue, New York, NY 10118.', 'address')).toBe(true);
    expect(statesContact('Call us on 023 9200 0000 or email hello@harbourbikes.example.', 'phone')).toBe(true);
    expect(statesContact('Call us on 023 9200 0000.', 'email')).toBe(false);
    expect(statesContact('Write to hello@harbourbikes.example.', 'any')).toBe(true);
    expect(statesContact('Dale Street Motors · Tel 0114 496 0321 · Open Mon–Fri 8am–5:30pm', 'hours')).toBe(true);
    expect(statesContact('De martes a viernes de 10:00 a 20:00 y sábados de 9:00 a 14:00.', 'hours')).toBe(true);
    expect(statesContact('An air-con regas costs £59 and takes about an hour.', 'hours')).toBe(false);
    expect(statesContact('The job runs at 2am.', 'hours')).toBe(false);
    // A footer's line of details gives the number with no word before it: the line says what it is.
    expect(statesContact('The Harbour Inn, Quay Street, St Ives TR26 1LT · 01736 496 210 · stay@inn.example', 'phone')).toBe(true);
    expect(statesContact('Customer care: care@shop.example · 0131 496 0455 (Mon–Fri 9am–5pm)', 'phone')).toBe(true);
    expect(statesContact('Order 0131 496 0455 was shipped.', 'phone')).toBe(false);
    // Documentation: numbers and addresses that are none of these.
    for (const text of [
      'The server listens on 127.0.0.1:5432 by default.',
      'Released on 2021-04-06, version 3.2.1 fixes 12 bugs.',
      'Set listen_addresses to the interfaces to listen on, a comma-separated list.',
      'Use os.networkInterfaces() to get the address of each interface.',
    ])
      expect(statesContact(text, 'any'), text).toBe(false);
  });
});
