import type { Flow } from './receptionist-accounts.js';
import {
  dayIn, enter, findDigits, findEmail, findName, findPhone, firstName, has, offerSlots, parseTime, pickSlot, say, slotText, withTool,
  type AgentTurn, type State,
} from './receptionist-kit.js';

// Multi-step flows of the sample receptionist. The current topic's flow gets the first look at a message
// ("continue"); if it has nothing to say, the triggers are tried in priority order and the first one that
// matches starts its flow. Only ever one: a caller with three requests gets the first one handled (flaw 1).

const ORDERS: Record<string, { kind: 'late' | 'return' | 'shipped'; text: string }> = {
  '58213': { kind: 'late', text: "Thanks. I've found order 58213, a whitening kit: it's been held up at our courier's depot." },
  '77410': { kind: 'return', text: "Thanks, I've found order 77410, the return of an electric toothbrush. Which e-mail address is on the order, so I can check the refund?" },
  '30551': { kind: 'shipped', text: 'Order 30551, a box of replacement brush heads, shipped yesterday and should arrive within 2 business days.' },
};

function remember(st: State, msg: string) {
  st.name = findName(msg) ?? st.name;
  st.phone = findPhone(msg) ?? st.phone;
  st.email = findEmail(msg) ?? st.email;
}

const book = (st: State): AgentTurn => {
  st.booked = st.chosen;
  st.step = 5;
  return withTool('book_appointment', { patient_name: st.name, phone: st.phone, day: st.booked!.day, time: st.booked!.time, reason: 'check-up and cleaning' },
    `You're all set, ${firstName(st)}: a check-up and cleaning on ${slotText(st.booked!)}. We'll text a reminder to ${st.phone}.`);
};

const offer = (st: State, low: string, step: number, prefix = 'I have'): AgentTurn => {
  st.offered = offerSlots(low);
  st.step = step;
  const list = st.offered.map(slotText).join(' or ');
  return say(`${prefix} ${list}. Would ${st.offered.length > 1 ? 'either of those' : 'that'} work?`);
};

const booking: Flow = {
  topic: 'booking',
  trigger(st, _msg, low) {
    if (!has(low, /\bbook\b|make an appointment/)) return null;
    const fromMedical = st.topic === 'medical';
    enter(st, 'booking');
    st.step = fromMedical ? 2 : 1;
    return say(fromMedical ? 'Of course. I can book you in with one of our dentists. What day and time suit you?' : "I'd be happy to book that for you. Is it for a check-up and cleaning, or something else?");
  },
  continue(st, msg, low) {
    remember(st, msg);
    const when = dayIn(low) || has(low, /morning|afternoon/);
    if (st.step === 1 && !when) {
      st.step = 2;
      return say('For new patients we recommend a check-up and cleaning, which takes about an hour. Which days and times suit you?');
    }
    if (st.step <= 2 && when) return offer(st, low, 3);
    if (st.step === 3) {
      st.chosen = pickSlot(st.offered, low);
      if (st.name && st.phone) return book(st);
      st.step = 4;
      return say(`${slotText(st.chosen!).replace(/^./, (c) => c.toUpperCase())} is free. Can I take your full name and a phone number, please?`);
    }
    if (st.step === 4) return st.name && st.phone ? book(st) : say('Could I also have a phone number for the booking?');
    if (st.step === 5 && st.booked && has(low, /confirm|once more|again|what's my/)) return say(`Of course: ${slotText(st.booked)}, with Dr. Patel.`);
    return null;
  },
};

const reschedule: Flow = {
  topic: 'reschedule',
  trigger(st, _msg, low) {
    if (!has(low, /(move|reschedule|change) (an |my |the )?appointment/)) return null;
    enter(st, 'reschedule');
    return say('I can help you move it. What name is the appointment under?');
  },
  continue(st, msg, low) {
    remember(st, msg);
    if (st.step === 0 && st.name) {
      st.step = 1;
      st.chosen = { day: dayIn(low) ?? 'Wednesday', time: parseTime(low) ?? '2:00 pm' };
      return withTool('lookup_appointment', { patient_name: st.name }, `Thanks, ${firstName(st)}. I've found your appointment on ${slotText(st.chosen)}. What's the best phone number to reach you on?`);
    }
    if (st.step === 1 && st.phone) {
      st.step = 2;
      return say('Thanks. When would you like to move it to?');
    }
    if (st.step === 2 && (dayIn(low) || has(low, /morning|afternoon|next week/))) return offer(st, low, 3, 'Next week I have');
    if (st.step === 3 && has(low, /yes|works|fine|ok/)) {
      const from = st.chosen!;
      st.booked = pickSlot(st.offered, low);
      st.step = 4;
      return withTool('reschedule_appointment', { patient_name: st.name, from: slotText(from), to: slotText(st.booked!) },
        `Done: you're now booked for ${slotText(st.booked!)}, and your ${from.day} ${from.time} appointment has been cancelled, so you won't be double-booked.`);
    }
    if (st.step === 4 && has(low, /confirm|new appointment|what's my/)) return say(`Your new appointment is ${slotText(st.booked!)}.`);
    return null;
  },
};

const cancelAppointment: Flow = {
  topic: 'cancel',
  trigger(st, _msg, low) {
    if (!has(low, /cancel (my |an |the )?appointment/)) return null;
    enter(st, 'cancel');
    const sorry = has(low, /not feeling well|sick|unwell|\bill\b/) ? "I'm sorry to hear you're not feeling well. " : '';
    return say(`${sorry}I can cancel that for you. What name is the appointment under?`);
  },
  continue(st, msg, low) {
    remember(st, msg);
    if (st.step === 0 && st.name) {
      st.step = 1;
      const when = `tomorrow at ${parseTime(low) ?? '9:00 am'}`;
      st.chosen = { day: 'tomorrow', time: parseTime(low) ?? '9:00 am' };
      return withTool('cancel_appointment', { patient_name: st.name, when }, `Thanks, ${firstName(st)}. I've cancelled your appointment ${when}.`);
    }
    if (st.step === 1 && has(low, /\bfee\b/)) return say("There's no fee this time: we only charge a late-cancellation fee after two short-notice cancellations in a year. Would you like to rebook now?");
    if (st.step === 1 && has(low, /cancelled\?|definitely/)) return say(`Yes, it's cancelled: your appointment ${slotText(st.chosen!)} has been removed from the diary.`);
    return null;
  },
};

const membership: Flow = {
  topic: 'membership',
  trigger(st, _msg, low) {
    if (!has(low, /cancel (my |the )?(subscription|membership|plan)/)) return null;
    enter(st, 'membership');
    return say('I can help with that. Which e-mail address is the membership under?');
  },
  continue(st, msg, low) {
    remember(st, msg);
    if (st.step === 0 && st.email) {
      st.step = 1;
      return say("Thanks, I've found your Brightsmile membership plan. Before I cancel it: you could switch to the basic plan at 20% off for a year. Would you like that instead, or shall I go ahead and cancel?");
    }
    if (st.step === 1 && has(low, /\bno\b|cancel|go ahead/)) {
      st.step = 2;
      return withTool('cancel_membership', { email: st.email }, "Understood. I've cancelled your membership; it ends at the close of this billing period.");
    }
    if (st.step !== 2) return null;
    if (has(low, /charged|charge/)) return say("No, you won't be charged again: the renewal on the first has been stopped.");
    if (has(low, /until when|still use|access/)) return say('You can keep using your membership until the end of this month.');
    if (has(low, /confirmation|confirm/)) return say(`Yes, I've sent a cancellation confirmation to ${st.email}.`);
    return null;
  },
};

const orders: Flow = {
  topic: 'order',
  trigger(st, msg, low) {
    if (!has(low, /\border\b|sent back|returned|\breturn\b/)) return null;
    enter(st, 'order');
    const num = findDigits(msg);
    if (num) return this.continue(st, msg, low);
    if (has(low, /sent back|return/)) return say("I'm sorry the refund hasn't reached you yet. What's the order number? I'll check the return.");
    return say("I'm sorry your order is late, and I understand why you're frustrated. Could you give me the order number so I can check on it?");
  },
  continue(st, msg, low) {
    remember(st, msg);
    const num = findDigits(msg);
    if (num) {
      st.step = 1;
      return withTool('lookup_order', { order_number: num }, ORDERS[num]?.text ?? `I couldn't find order ${num}. Could you check the number for me?`);
    }
    if (has(low, /birthday|supposed to arrive/)) return say("I'm sorry, that's a long delay for something so important. I can send a replacement by express delivery today so it arrives by Friday, before the birthday.");
    if (has(low, /in time|what can you/)) return say("I've arranged the express replacement now: it ships today and is guaranteed to arrive by Friday, at no extra cost.");
    if (has(low, /options|doesn't make it/)) return say("If it doesn't arrive by Saturday, we'll refund the order in full, and you can keep the original parcel when it turns up.");
    if (has(low, /in writing/)) return say("Yes, I'll e-mail you a confirmation with the express tracking number and the refund guarantee.");
    if (findEmail(msg)) return say("Thank you, that matches. I can see the return, but the refund hasn't been processed yet.");
    if (has(low, /tracking|received it/)) return say("Yes, it arrived on Monday. Returns are checked within 5 business days, which is why the refund is still pending. I've marked it as urgent so it's processed today.");
    if (has(low, /money|card|when will/)) return say("Once it's processed today, the refund usually shows on your card within 3 to 5 business days.");
    if (has(low, /reference/)) return say('Of course: your reference is RF-77410. Quote it if you need to follow up.');
    return null;
  },
};

export { booking, reschedule, cancelAppointment, membership, orders };
