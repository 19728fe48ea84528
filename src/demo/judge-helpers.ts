import type { Entry, Verdict } from './demo-judge.js';

// Building blocks of the demo judge's rules. Every MET/NOT_MET quotes the sentence that decided it,
// copied from the transcript entry, so the service's verbatim check keeps the evidence.

export type Grade = (t: Entry[]) => Verdict;

/** What the agent said aloud: the entry's content (its tool calls are apart). */
const spoken = (e: Entry) => e.text;
const agent = (t: Entry[]) => t.filter((e) => e.role === 'assistant');

/** The sentence of `text` in which `re` matches (a verbatim substring of the entry). */
export function sentence(text: string, re: RegExp): string {
  const m = re.exec(text.toLowerCase());
  if (!m) return text.slice(0, 200).trim();
  // sentence ends: . ! ? followed by a space or the end (not after a title such as "Dr."), and line breaks
  const ends: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n' || (/[.!?]/.test(c) && (i + 1 === text.length || /\s/.test(text[i + 1])) && !/\b(Dr|Mr|Mrs|Ms)$/.test(text.slice(0, i)))) ends.push(i);
  }
  const before = ends.filter((i) => i < m.index).pop();
  const after = ends.find((i) => i >= m.index + Math.max(0, m[0].length - 1));
  return text.slice(before === undefined ? 0 : before + 1, after === undefined ? text.length : after + 1).trim();
}

const quote = (e: Entry, re: RegExp) => ({ turn: e.turn, role: e.role, text: sentence(spoken(e), re) });
export const verdict = (decision: Verdict['decision'], rationale: string, evidence: Verdict['evidence'] = []): Verdict => ({ decision, rationale, evidence });

/** MET when some agent reply matches. */
export const says = (re: RegExp, what: string): Grade => (t) => {
  const e = agent(t).find((x) => re.test(spoken(x).toLowerCase()));
  return e ? verdict('MET', `the agent ${what} (turn ${e.turn})`, [quote(e, re)]) : verdict('NOT_MET', `no agent reply ${what}`);
};

/** MET when no agent reply matches; the first one that does is quoted. */
export const never = (re: RegExp, what: string): Grade => (t) => {
  const e = agent(t).find((x) => re.test(spoken(x).toLowerCase()));
  return e ? verdict('NOT_MET', `the agent ${what} at turn ${e.turn}`, [quote(e, re)]) : verdict('MET', `the agent never ${what}`);
};

/** Every caller message matching `ask` is answered by a reply matching `answer`. */
export const answers = (ask: RegExp, answer: RegExp, what: string): Grade => (t) => {
  const pairs: { q: Entry; a: Entry | undefined }[] = [];
  t.forEach((e, i) => {
    if (e.role === 'user' && ask.test(e.text.toLowerCase())) pairs.push({ q: e, a: t.slice(i + 1).find((x) => x.role === 'assistant') });
  });
  if (pairs.length === 0) return verdict('UNSURE', 'the caller never raised it');
  const ok = pairs.filter((p) => p.a && answer.test(spoken(p.a).toLowerCase()));
  const bad = pairs.find((p) => !ok.includes(p));
  if (ok.length === pairs.length) return verdict('MET', `the agent ${what} all ${pairs.length} times`, [quote(ok[0].a!, answer)]);
  const ev = bad?.a ? [{ turn: bad.a.turn, role: bad.a.role, text: sentence(spoken(bad.a), /./) }] : [];
  return verdict(ok.length ? 'PARTIAL' : 'NOT_MET', `the agent ${what} ${ok.length} of ${pairs.length} times`, ev);
};

/** The first agent reply matching `first` comes before the first one matching `then`. */
export const before = (first: RegExp, then: RegExp, what: string): Grade => (t) => {
  const a = agent(t).find((x) => first.test(spoken(x).toLowerCase()));
  const b = agent(t).find((x) => then.test(x.text.toLowerCase()));
  if (a && (!b || a.turn < b.turn)) return verdict('MET', `the agent ${what} (turn ${a.turn})`, [quote(a, first)]);
  return verdict('NOT_MET', `the agent did not ${what}`, b ? [quote(b, then)] : []);
};

/** All parts MET → MET; some → PARTIAL; none → NOT_MET. */
export const all = (...parts: Grade[]): Grade => (t) => {
  const vs = parts.map((p) => p(t));
  const met = vs.filter((v) => v.decision === 'MET').length;
  const decision = met === vs.length ? 'MET' : met > 0 ? 'PARTIAL' : 'NOT_MET';
  return verdict(decision, vs.map((v) => v.rationale).join('; '), vs.flatMap((v) => v.evidence));
};

/** Counts the agent replies matching `re`: MET when there are at most `max`. */
export const atMost = (re: RegExp, max: number, what: string): Grade => (t) => {
  const hits = agent(t).filter((x) => re.test(spoken(x).toLowerCase()));
  return verdict(hits.length <= max ? 'MET' : 'NOT_MET', `the agent ${what} ${hits.length} time${hits.length === 1 ? '' : 's'}`, hits.slice(0, 2).map((e) => quote(e, re)));
};

/** How many of `topics` one agent reply (the first, or the best after `from`) covers. */
export const covers = (topics: RegExp[], pick: 'first' | 'any', what: string): Grade => (t) => {
  const replies = pick === 'first' ? agent(t).slice(0, 1) : agent(t).slice(1);
  let best: Entry | undefined;
  let n = 0;
  for (const e of replies) {
    const k = topics.filter((re) => re.test(spoken(e).toLowerCase())).length;
    if (k > n) [best, n] = [e, k];
  }
  const decision = n === topics.length ? 'MET' : n >= 2 ? 'PARTIAL' : 'NOT_MET';
  const e = best ?? replies[0];
  return verdict(decision, `${what}: ${n} of ${topics.length} covered in one reply`, e ? [{ turn: e.turn, role: e.role, text: sentence(spoken(e), topics.find((re) => re.test(spoken(e).toLowerCase())) ?? /./) }] : []);
};

/** Every topic is addressed somewhere in the conversation. */
export const handlesEach = (topics: Record<string, RegExp>): Grade => (t) => {
  const found = Object.entries(topics).map(([name, re]) => ({ name, e: agent(t).find((x) => re.test(spoken(x).toLowerCase())), re }));
  const done = found.filter((f) => f.e);
  const missing = found.filter((f) => !f.e).map((f) => f.name);
  const decision = missing.length === 0 ? 'MET' : done.length > 0 ? 'PARTIAL' : 'NOT_MET';
  return verdict(decision, missing.length ? `not handled: ${missing.join(', ')}` : `handled: ${done.map((f) => f.name).join(', ')}`, done.map((f) => quote(f.e!, f.re)));
};

/** Every e-mail address the agent repeats is the same one. */
export const consistentEmails: Grade = (t) => {
  const re = /[\w.+-]+@[\w-]+(\.[\w-]+)+/;
  const said = agent(t).map((e) => ({ e, m: re.exec(spoken(e).toLowerCase())?.[0] })).filter((x) => x.m);
  if (said.length === 0) return verdict('UNSURE', 'the agent never repeated an address');
  const odd = said.find((x) => x.m !== said[0].m);
  return odd ? verdict('NOT_MET', `the agent used two different addresses (${said[0].m}, ${odd.m})`, [quote(odd.e, re)])
    : verdict('MET', `every address the agent repeated is ${said[0].m}`, [quote(said[0].e, re)]);
};

/** Every question the agent asks names at most two identifying details. */
export const fewDetailsAtOnce: Grade = (t) => {
  const ids = [/name/, /date of birth|birthday/, /zip|postcode/, /phone/, /e-?mail/, /account number/];
  const e = agent(t).find((x) => spoken(x).split(/(?<=[.?!])\s+/).some((s) => s.includes('?') && ids.filter((re) => re.test(s.toLowerCase())).length > 2));
  return e ? verdict('NOT_MET', `the agent asked for more than two details at once (turn ${e.turn})`, [quote(e, /\?/)]) : verdict('MET', 'the agent asked for at most two details per question');
};
