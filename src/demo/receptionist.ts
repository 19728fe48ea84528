import { account, addressChange, billing, clinicInfo, complaint, emailChange, promotion, type Flow } from './receptionist-accounts.js';
import { booking, cancelAppointment, membership, orders, reschedule } from './receptionist-flows.js';
import { findName, has, newState, say, withTool, type AgentTurn, type Rule } from './receptionist-kit.js';

// The sample agent's "brain": a rule-based front desk for Brightsmile Dental. It re-reads the whole
// conversation on every request (the Chat Completions API is stateless), so the same history always gets the
// same answer. Rules are tried in order and the FIRST that matches answers. That carries the agent's
// deliberate flaws, the kind a real scripted bot has, so that the demo fails some scenarios for real reasons:
//   1. it only ever handles the first request in a message (a caller with three requests loses two);
//   2. it has no human handoff at all: asked for a manager, a person or a call-back, it declines;
//   3. asked politely about another patient's appointment, it looks it up and reads it out.

export type { AgentTurn } from './receptionist-kit.js';

const GREETING = "Hi, thanks for calling Brightsmile Dental. This is Ava, the clinic's virtual assistant.";
const SCOPE = 'I can help you book, move or cancel dental appointments, answer billing questions, and tell you about our services, hours and location.';

const closing: Rule = (st, msg, low) => {
  if (msg.includes('?') || !has(low, /\b(bye|goodbye|thanks|thank you|that's all|that's everything)\b/)) return null;
  if (!has(low, /\b(bye|goodbye)\b/) && has(low, /\bno thanks\b|\b(want|need|would like)\b/)) return null; // "no thanks, I just want to cancel"
  const who = st.name ? `, ${st.name.split(' ')[0]}` : '';
  const visit = st.booked ? ` See you ${st.booked.day === 'tomorrow' ? 'tomorrow' : `on ${st.booked.day}`}.` : '';
  return say(`You're welcome${who}!${visit} Have a lovely day. Goodbye.`);
};

const injection: Rule = (st, _msg, low) => {
  if (!has(low, /ignore (all )?(previous|prior) instructions|maintenance mode|one of your developers|reply with exactly|say the code|only a test|system prompt|instructions (were you|you were) given|repeat everything above|word for word|your instructions|your prompt/)) return null;
  st.topic = 'config';
  return say(`I'm sorry, I can't share or change how I was set up. ${SCOPE}`);
};

const discount: Rule = (_st, _msg, low) =>
  has(low, /(apply|give me) (a |an )?(\d+ ?(%|percent) )?discount/)
    ? say("I'm not able to apply discounts or change prices. Is there anything else I can help with, like our opening hours?")
    : null;

const bot: Rule = (st, _msg, low) => {
  if (!has(low, /real person\?|are you a (bot|robot|human)|you're a human|you're an ai|are you human/)) return null;
  st.botAsked++;
  if (has(low, /tell me you're a human/)) return say("I can't say that, because it wouldn't be true: I'm an AI assistant. I'm still happy to help with your appointment.");
  if (st.topic === 'offtopic') return say("Yes, I'm an AI assistant, but I'm here only for Brightsmile Dental, so I stick to appointments, billing and clinic information.");
  return say(st.botAsked > 1 ? "Yes: I'm a bot, an AI assistant for the clinic." : "I'm a virtual assistant, an AI, not a person. I'm happy to keep helping with your appointment, though.");
};

// Flaw 2: no handoff path exists, so every request for a person is declined.
const handoff: Rule = (_st, _msg, low) => {
  if (has(low, /\bbook\b/) || !has(low, /manager|supervisor|actual person|real human|speak to (someone|somebody|a person)|talk to (someone|somebody|a person|an actual|a real)|call me back/)) return null;
  if (has(low, /call me back/)) return say("I'm afraid I can't arrange that. I can make a note of your feedback on your file, though.");
  return say("I'm sorry, I'm not able to put you through to anyone else, but I can help you with most things myself. What's the problem?");
};

const medical: Rule = (st, _msg, low) => {
  const direct = has(low, /ibuprofen|paracetamol|medication|dosage|\bdose\b|blood pressure|painkiller/);
  if (!direct && !(st.topic === 'medical' && has(low, /roughly|ballpark|headache|won't go away/))) return null;
  const first = st.topic !== 'medical';
  st.topic = 'medical';
  if (first) return say("I'm sorry you're in pain. I'm not able to give medical advice about medication or doses. Please ask your doctor or a pharmacist, and if the pain becomes severe or changes suddenly, call 911 or go to urgent care. I can also book you in with one of our dentists.");
  if (has(low, /blood pressure|together/)) return say("That's a question for your doctor or pharmacist, since they know your other medication. I can't advise on combining medicines.");
  if (has(low, /roughly|ballpark/)) return say("I'm sorry, I can't suggest an amount, even roughly. A pharmacist can tell you quickly what is safe for you.");
  return say("Thanks for telling me. A headache that won't go away is worth getting checked, and if it suddenly gets much worse, please seek urgent care.");
};

const offTopic: Rule = (st, _msg, low) => {
  const asked = has(low, /poem|homework|\btimes\b|video game|recommend a (good )?(game|movie|book)/);
  if (!asked && !(st.topic === 'offtopic' && has(low, /please|just \w+ lines/))) return null;
  st.topic = 'offtopic';
  if (has(low, /homework|\btimes\b/)) return say("I can't help with homework, I'm afraid. I can only help with things to do with the clinic.");
  if (has(low, /game|movie/)) return say("I can't recommend games, sorry. I'm only able to help with the clinic.");
  if (!asked) return say("Sorry, I really can't, not even a short one. Is there anything about your teeth or an appointment I can help with?");
  return say("That's a lovely idea, but I can't write poems: I'm the front desk assistant for Brightsmile Dental. I can help with appointments, billing and questions about the clinic.");
};

const scope: Rule = (_st, _msg, low) => (has(low, /what (kind of things )?can you (actually )?help/) ? say(SCOPE) : null);

const hours: Rule = (_st, _msg, low) =>
  has(low, /opening hours|what time do you (close|open)|when are you open/)
    ? say("We're open Monday to Thursday from 8:00 am to 6:00 pm, and on Fridays from 8:00 am to 5:00 pm.")
    : null;

// Flaw 3: a polite question about someone else's appointment gets answered from the diary.
const otherPerson: Rule = (st, _msg, low) => {
  const about = has(low, /my (wife|husband|partner|mother|father|son|daughter|friend)\b/) || (st.topic === 'other' && has(low, /\b(she|her)\b/));
  if (!about) return null;
  const first = st.topic !== 'other';
  st.topic = 'other';
  if (has(low, /phone number|contact/)) return say("I'm sorry, I can't read out contact details from a patient's file. She can check them by calling us herself.");
  if (first && has(low, /could you|can you|please|would you/)) return withTool('lookup_appointment', { patient_name: 'Claire Doyle' }, 'Of course! Her appointment is on Thursday at 3:30 pm with Dr. Patel.');
  if (has(low, /day and time|when/)) return say("That's lovely! It's Thursday at 3:30 pm, and it usually takes about an hour.");
  if (has(low, /confirm|booked/)) return say("Yes, she's booked for Thursday at 3:30 pm.");
  return say('Thanks for letting me know. Is there anything else you need for the surprise?');
};

const notRebooking: Rule = (_st, _msg, low) =>
  has(low, /(won't|not|don't want to) (re)?book|no,? i won't/) ? say("No problem at all. Just call us whenever you feel better and we'll find a time.") : null;

// Trigger priority: when a message holds several requests, the earliest flow here is the one handled.
const FLOWS: Flow[] = [emailChange, addressChange, reschedule, cancelAppointment, membership, orders, complaint, billing, promotion, account, booking, clinicInfo];

const flows: Rule = (st, msg, low) => {
  const current = FLOWS.find((f) => f.topic === st.topic);
  const cont = current?.continue(st, msg, low);
  if (cont) return cont;
  for (const f of FLOWS) {
    const started = f.trigger(st, msg, low);
    if (started) return started;
  }
  return null;
};

const fallback: Rule = (st, msg, low) => {
  const name = findName(msg);
  if (name) {
    st.name = name;
    const first = name.split(' ')[0];
    if (st.topic === 'newpatient') return say(`Thanks, ${first}. Would you like me to book a new-patient check-up for you?`);
    return say(`Thanks, ${first}. I've added a note to your file.`);
  }
  if (has(low, /questions?\b|\bask\b/)) return say('Of course, go ahead. What would you like to know?');
  if (has(low, /already explained|not going through|again/)) return say("I understand it's frustrating to repeat yourself. A short summary is enough for me to help.");
  if (has(low, /bring|have ready/)) return say('Please bring a photo ID, your insurance card if you have one, and a list of any medicines you take. Arriving ten minutes early helps too.');
  if (st.turn === 0) return say('How can I help you today?');
  return say('Is there anything else I can help you with today?');
};

const RULES: Rule[] = [closing, injection, discount, bot, handoff, medical, offTopic, scope, hours, otherPerson, notRebooking, flows, fallback];

/** The receptionist's answer to the last of the caller's messages, given everything said so far. */
export function respond(userMessages: readonly string[]): AgentTurn {
  const st = newState();
  let out: AgentTurn = say('');
  for (const msg of userMessages) {
    const low = msg.toLowerCase().replace(/[\u2018\u2019]/g, "'");
    out = RULES.reduce<AgentTurn | null>((found, rule) => found ?? rule(st, msg, low), null)!;
    if (st.turn === 0) out = { ...out, text: `${GREETING} ${out.text}` };
    st.turn++;
  }
  return out;
}
