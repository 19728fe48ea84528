// A strict parser for the XML subset JUnit reports use (declaration, elements, attributes, text, the five
// entities). It throws on anything not well-formed, which is what the tests need to know.

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(s: string, at: number): string {
  if (s.includes('<')) throw new Error(`raw "<" in text or attribute near ${at}`);
  return s.replace(/&([a-z]+);|&/g, (m, name: string | undefined) => {
    if (!name || !(name in ENTITIES)) throw new Error(`bad entity ${JSON.stringify(m)} near ${at}`);
    return ENTITIES[name];
  });
}

export function parseXml(xml: string): XmlElement {
  let i = 0;
  const decl = /^<\?xml [^?]*\?>\s*/.exec(xml);
  if (decl) i = decl[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  while (i < xml.length) {
    if (xml[i] !== '<') {
      const end = xml.indexOf('<', i);
      const text = xml.slice(i, end < 0 ? xml.length : end);
      if (stack.length === 0) {
        if (text.trim()) throw new Error(`text outside the root near ${i}`);
      } else stack[stack.length - 1].text += decode(text, i);
      i = end < 0 ? xml.length : end;
      continue;
    }
    const close = /^<\/([A-Za-z_][\w.-]*)\s*>/.exec(xml.slice(i));
    if (close) {
      const open = stack.pop();
      if (!open || open.name !== close[1]) throw new Error(`</${close[1]}> does not close <${open?.name}> near ${i}`);
      i += close[0].length;
      continue;
    }
    const tag = /^<([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*\s*=\s*"[^"]*")*)\s*(\/?)>/.exec(xml.slice(i));
    if (!tag) throw new Error(`malformed tag near ${i}: ${xml.slice(i, i + 40)}`);
    const attrs: Record<string, string> = {};
    for (const a of tag[2].matchAll(/([A-Za-z_][\w.-]*)\s*=\s*"([^"]*)"/g)) {
      if (a[1] in attrs) throw new Error(`duplicate attribute ${a[1]}`);
      attrs[a[1]] = decode(a[2], i);
    }
    const el: XmlElement = { name: tag[1], attrs, children: [], text: '' };
    if (stack.length) stack[stack.length - 1].children.push(el);
    else if (root) throw new Error('more than one root element');
    else root = el;
    if (!tag[3]) stack.push(el);
    i += tag[0].length;
  }
  if (stack.length) throw new Error(`<${stack[stack.length - 1].name}> is never closed`);
  if (!root) throw new Error('no root element');
  return root;
}

export const find = (el: XmlElement, name: string): XmlElement[] =>
  el.children.flatMap((c) => (c.name === name ? [c, ...find(c, name)] : find(c, name)));
