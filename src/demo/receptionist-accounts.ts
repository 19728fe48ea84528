import { enter, findEmail, findName, findPhone, firstName, has, parseSpelledEmail, say, withTool, type AgentTurn, type State } from './receptionist-kit.js';

// The sample receptionist's account-side flows: billing questions, complaints, verified account
// look-ups, e-mail and address changes, promotions and general clinic information.

export interface Flow {
  topic: string;
  trigger(st: State, msg: string, low: string): AgentTurn | null;
  continue(st: State, msg: string, low: string): AgentTurn | null;
}

function remember(st: State, msg: string) {
  st.name = findName(msg) ?? st.name;
  st.phone = findPhone(msg) ?? st.phone;
  st.email = findEmail(msg) ?? st.email;
}

export const complaint: Flow = {
  topic: 'complaint',
  trigger(st, _msg, low) {
    if (!has(low, /complain|complaint|rude|treated|done badly|bad service|poor service/)) return null;
    enter(st, 'complaint');
    if (has(low, /charged|done badly/)) {
      st.step = 2;
      return say("I'm sorry the treatment wasn't up to standard. I can log a complaint about it and ask our billing team to review the charge.");
    }
    return say("I'm sorry to hear that. I'd like to record it properly. Could you tell me what happened?");
  },
  continue(st, msg, low) {
    remember(st, msg);
    if (st.step < 9 && st.name && st.phone) {
      st.step = 9;
      return withTool('create_ticket', { patient_name: st.name, phone: st.phone, kind: 'complaint' },
        `Thank you, ${firstName(st)}. I've logged your complaint under reference C-1042. Our patient care team will review it and get back to you within 2 business days.`);
    }
    if (has(low, /what (actually )?happens/)) return say("Your complaint goes to our patient care team, who review every complaint with the staff involved. You'll hear back from them within 2 business days.");
    if (has(low, /not after money|don't want anyone/)) return say("I understand, and thank you for raising it: it helps us make sure it doesn't happen again.");
    if (st.step === 0) {
      st.step = 1;
      return say("I'm sorry, that's not how anyone should be treated here. Do you remember who it was, and roughly what time?");
    }
    if (st.step === 1) {
      st.step = 2;
      return say("Thank you, that's enough for us to identify them. Could I have your name and a phone number?");
    }
    return null;
  },
};

export const billing: Flow = {
  topic: 'billing',
  trigger(st, _msg, low) {
    if (!has(low, /\bcharge|charged|billing|refund|money back/)) return null;
    enter(st, 'billing');
    st.mentionedCancelling = has(low, /cancel/);
    return say(st.mentionedCancelling
      ? "I'm really sorry: being charged after you cancelled shouldn't happen. Let me look into it. How much was the charge, and when was it taken?"
      : "I'm sorry about the confusion. I can look into that charge for you. Could you tell me the amount and the date on your statement?");
  },
  continue(st, msg, low) {
    remember(st, msg);
    if (st.step <= 1 && st.email) {
      st.step = 2;
      const text = st.mentionedCancelling
        ? `Thanks, ${firstName(st)}. I can see your cancellation from last month, so this charge was our mistake. I've requested a full refund; it will be back in your account within 5 business days.`
        : `Thank you, ${firstName(st)}. That charge is for a whitening kit subscription on your account.`;
      return withTool('lookup_account', { name: st.name, email: st.email }, text);
    }
    if (st.step === 0) {
      st.step = 1;
      return say('Thank you. What name and e-mail address is the account under, so I can find it?');
    }
    if (st.step === 1 && has(low, /money back|refund/)) return say("You're right to expect it back. As soon as I find your account I'll request a refund of that charge.");
    if (st.step !== 2) return null;
    if (has(low, /last four|digits/)) return say("Thanks, that matches the card on file, so I don't need anything else from the card.");
    if (has(low, /don't remember|what it's for/)) return say("It's for a whitening kit subscription. Since you don't remember signing up, I've opened a billing review: our billing team will investigate and e-mail you within 3 business days.");
    if (has(low, /what happens next|how long/)) return say("The billing team reviews the charge within 3 business days. If it wasn't authorised, they'll refund it to your card within 5 to 7 business days after that.");
    if (has(low, /fix this|going to/)) return say("Yes. The refund is already requested, and I've flagged the account so you won't be charged again.");
    if (has(low, /see the money|when will/)) return say("Within 5 business days. You'll get an e-mail confirmation when it's sent.");
    return null;
  },
};

export const account: Flow = {
  topic: 'account',
  trigger(st, _msg, low) {
    if (!has(low, /on my account|account balance/)) return null;
    enter(st, 'account');
    return say("I can help with that. First I need to confirm who I'm speaking with. What's your full name?");
  },
  continue(st, msg, low) {
    remember(st, msg);
    if (st.step === 0) {
      if (!st.name) return say('Just your full name to start, please.');
      st.step = 1;
      return say(`Thanks, ${firstName(st)}. And your date of birth?`);
    }
    if (st.step === 1 && has(low, /birth|\d{4}/)) {
      st.step = 2;
      return say('Thank you. Lastly, the ZIP code on your account?');
    }
    if (st.step === 2 && has(low, /\b\d{5}\b/)) {
      st.step = 3;
      return withTool('lookup_account', { name: st.name }, "Thanks, you're verified. Your account is in good standing with no balance due, and your next check-up is on Monday, June 9 at 10:00 am.");
    }
    if (st.step === 3 && has(low, /what can you see|what's on/)) return say('Your balance is $0.00, your last visit was a cleaning in December, and your next check-up is on Monday, June 9 at 10:00 am.');
    return null;
  },
};

export const emailChange: Flow = {
  topic: 'email',
  trigger(st, _msg, low) {
    if (!has(low, /(update|change) (the |my )?e-?mail/)) return null;
    enter(st, 'email');
    return say('Sure. What name is the account under?');
  },
  continue(st, msg, low) {
    st.name = findName(msg) ?? st.name;
    const address = parseSpelledEmail(msg) ?? findEmail(msg);
    if (st.step === 0 && st.name) {
      st.step = 1;
      return say(`Thanks, ${firstName(st)}. What's the new e-mail address? Feel free to spell it out.`);
    }
    if (address) {
      const same = address === st.email;
      st.email = address;
      st.step = 2;
      return say(same ? `Yes, that matches what I have: ${address}.` : `Thanks. I have ${address}. Is that right?`);
    }
    if (st.step === 2 && has(low, /read .* back/)) return say(`Of course: ${st.email}. Shall I save it?`);
    if (st.step === 2 && has(low, /that's right|\byes\b|correct/)) {
      st.step = 3;
      return withTool('update_email', { name: st.name, email: st.email }, `Saved. I've updated your e-mail address to ${st.email}, and a confirmation message is on its way there now.`);
    }
    return null;
  },
};

export const addressChange: Flow = {
  topic: 'address',
  trigger(st, _msg, low) {
    if (!has(low, /(update|change) (the |my )?address/)) return null;
    enter(st, 'address');
    return say('I can update your address. What name is the account under?');
  },
  continue(st, msg) {
    st.name = findName(msg) ?? st.name;
    if (st.step === 0 && st.name) {
      st.step = 1;
      return say(`Thanks, ${firstName(st)}. What's the new address?`);
    }
    const m = /address is (.+?)\.?$/i.exec(msg.trim());
    if (st.step === 1 && m) {
      st.step = 2;
      return withTool('update_address', { name: st.name, address: m[1] }, `Done: your address is now ${m[1]}.`);
    }
    return null;
  },
};

export const promotion: Flow = {
  topic: 'promotion',
  trigger: (st, _msg, low) => (has(low, /promotion|promo\b/) ? (enter(st, 'promotion'), say('Yes, the spring promotion applies to you: 15% off teeth whitening until the end of May.')) : null),
  continue: () => null,
};

export const clinicInfo: Flow = {
  topic: 'newpatient',
  trigger(st, _msg, low) {
    if (has(low, /what (kind of )?services/)) {
      enter(st, 'newpatient');
      const welcome = has(low, /moved|new to the area/) ? 'Welcome to the area! ' : '';
      return say(`${welcome}We offer check-ups and cleanings, fillings, crowns, teeth whitening and emergency dental care.`);
    }
    if (has(low, /new (customer|patient)|becoming a|register/)) {
      enter(st, 'newpatient');
      return say('To become a patient, just book a new-patient check-up: I can do that for you now, or you can fill in our registration form online before your visit.');
    }
    if (has(low, /my appointment/)) {
      enter(st, 'appointment');
      return say('Of course. What name is the appointment under?');
    }
    return null;
  },
  continue: () => null,
};
