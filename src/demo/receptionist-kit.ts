// Shared pieces of the sample receptionist: its conversation state, reply helpers and the small parsers
// that read names, phone numbers, days and spelled-out e-mail addresses from what callers say.

export interface AgentTurn {
  text: string;
  /** A tool the agent calls before answering (the provider adapter answers it from the agent's tool_mocks). */
  tool?: { name: string; args: Record<string, unknown> };
}

export interface Slot {
  day: string;
  time: string;
}

export interface State {
  turn: number;
  topic: string | null;
  /** Step within the current topic's flow. */
  step: number;
  name: string | null;
  phone: string | null;
  email: string | null;
  offered: Slot[];
  chosen: Slot | null;
  booked: Slot | null;
  botAsked: number;
  mentionedCancelling: boolean;
  tools: string[];
}

export const newState = (): State => ({
  turn: 0, topic: null, step: 0, name: null, phone: null, email: null, offered: [], chosen: null, booked: null,
  botAsked: 0, mentionedCancelling: false, tools: [],
});

export type Rule = (st: State, msg: string, low: string) => AgentTurn | null;

export const say = (text: string): AgentTurn => ({ text });
export const withTool = (name: string, args: Record<string, unknown>, text: string): AgentTurn => ({ text, tool: { name, args } });
export const has = (s: string, re: RegExp) => re.test(s);

/** Starts a topic's flow at its first step. */
export function enter(st: State, topic: string): void {
  st.topic = topic;
  st.step = 0;
}

export const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as const;
const cap = (s: string) => s[0].toUpperCase() + s.slice(1);

/** "It's Priya Raman, and…" → "Priya Raman". Needs a lead-in, so a capitalised sentence start is not a name. */
export function findName(msg: string): string | null {
  // lead-ins in either case, the name itself capitalised (no inline regex flags in Node 20)
  const m = /(?:[Nn]ame is|[Nn]ame's|[Ii]t's under|under|[Ii]t's|I'm|[Tt]his is)\s+((?:[A-Z][\p{L}'-]+)(?:\s+[A-Z][\p{L}'-]+)+)/u.exec(msg.replace(/[’]/g, "'"));
  if (!m) return null;
  const words = m[1].split(/\s+/).filter((w) => !DAYS.includes(w.toLowerCase() as (typeof DAYS)[number]));
  return words.length >= 2 ? words.slice(0, 2).join(' ') : null;
}

export const findPhone = (msg: string): string | null => /\b\d{3}-\d{4}\b/.exec(msg)?.[0] ?? null;
export const findEmail = (msg: string): string | null => /[\w.+-]+@[\w-]+(\.[\w-]+)+/.exec(msg)?.[0].toLowerCase() ?? null;
export const findDigits = (msg: string): string | null => /\b\d(?:[ -]?\d){4,}\b/.exec(msg)?.[0].replace(/\D/g, '') ?? null;

const NUMBER_WORDS: Record<string, string> = {
  zero: '0', oh: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9',
  ten: '10', twenty: '20', thirty: '30', forty: '40', fifty: '50', 'forty-two': '42',
};
const FILLER = new Set(['the', 'number', 'please', 'so', 'and']);

/** "j, o, r, d, a, n, dot, p, e, l, l, four, two, at example dot com" → "jordan.pell42@example.com". */
export function parseSpelledEmail(msg: string): string | null {
  const low = msg.toLowerCase().replace(/[’]/g, "'");
  if (!/\bat\b/.test(low) || !/\bdot\b/.test(low)) return null;
  const body = low.replace(/^.*?\b(?:new one is|address is|that's|it's|is)\b/, '').replace(/[.!?]+$/, '');
  let out = '';
  for (const raw of body.split(/[\s,]+/)) {
    const w = raw.trim();
    if (!w || FILLER.has(w)) continue;
    if (w === 'dot') out += '.';
    else if (w === 'at') out += '@';
    else if (NUMBER_WORDS[w]) out += NUMBER_WORDS[w];
    else out += w.replace(/[^a-z0-9._-]/g, '');
  }
  return /^[a-z0-9._-]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(out) ? out : null;
}

/** Free slots that respect the days and part of day the caller named. */
export function offerSlots(low: string): Slot[] {
  const except = /except (\w+)/.exec(low)?.[1];
  const days = DAYS.filter((d) => low.includes(d) && d !== except);
  const afternoon = /afternoon|after lunch/.test(low);
  if (/tomorrow/.test(low)) return [{ day: 'tomorrow', time: afternoon ? '2:00 pm' : '9:00 am' }];
  const pool = (days.length ? [...days] : DAYS.filter((d) => d !== except)).map(cap);
  const times = afternoon ? ['2:30 pm', '3:00 pm'] : ['9:00 am', '10:00 am'];
  const picks = pool.length > 2 ? [pool[0], pool[2]] : pool;
  return picks.slice(0, 2).map((day, i) => ({ day, time: times[i] ?? times[0] }));
}

/** The offered slot the caller chose ("around ten on Thursday", "yes, that works"). */
export function pickSlot(offered: Slot[], low: string): Slot | null {
  if (offered.length === 0) return null;
  return offered.find((s) => low.includes(s.day.toLowerCase())) ?? offered[0];
}

export const slotText = (s: Slot) => (s.day === 'tomorrow' ? `tomorrow at ${s.time}` : `${s.day} at ${s.time}`);
export const firstName = (st: State) => (st.name ? st.name.split(' ')[0] : null);

const HOUR_WORDS = ['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

/** "Wednesday at two in the afternoon" → "2:00 pm"; "nine thirty tomorrow" → "9:30 am". */
export function parseTime(low: string): string | null {
  const m = /\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?::(\d\d)| (thirty|fifteen|forty-five))?\b(?! (days|weeks|business))/.exec(low);
  if (!m) return null;
  const h = /\d/.test(m[1]) ? Number(m[1]) : HOUR_WORDS.indexOf(m[1]);
  if (h < 1 || h > 12) return null;
  const min = m[2] ?? (m[3] === 'thirty' ? '30' : m[3] === 'fifteen' ? '15' : m[3] === 'forty-five' ? '45' : '00');
  const pm = /afternoon|evening|\bpm\b/.test(low) || (!/morning|\bam\b/.test(low) && h < 8);
  return `${h}:${min} ${pm ? 'pm' : 'am'}`;
}

export const dayIn = (low: string): string | null => {
  const d = DAYS.find((x) => low.includes(x));
  return d ? cap(d) : /tomorrow/.test(low) ? 'tomorrow' : null;
};
