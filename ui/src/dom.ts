type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | EventListener | undefined>;

/** Creates an element; `on*` attributes become listeners, `false`/`undefined` are skipped. */
export function h(tag: string, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'object' ? child : String(child));
  }
  return el;
}

export function table(headers: string[], rows: HTMLElement[], label: string): HTMLElement {
  return h(
    'table',
    { 'aria-label': label },
    h('thead', {}, h('tr', {}, ...headers.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, ...rows),
  );
}

export function fmt(n: number | null | undefined, digits = 1): string {
  return n === null || n === undefined || Number.isNaN(n) ? '—' : n.toFixed(digits);
}

export function pct(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : `${(n * 100).toFixed(2)} %`;
}

export function time(iso: string | number): string {
  return new Date(iso).toLocaleTimeString();
}
