// One app log line as `npm run up` prints it. Plain CommonJS, like the rest of scripts/lib.
'use strict';

/** `: intent-zh v2` from a line's model/version fields ('' when the message names it already). */
function subjectOf(e) {
  if (typeof e.model !== 'string' || e.model === '') return '';
  if (typeof e.msg === 'string' && e.msg.includes(`'${e.model}'`)) return '';
  const version = e.version === undefined || e.version === '' ? '' : ` v${e.version}`;
  return `: ${e.model}${version}`;
}

/**
 * Formats one line an app wrote: a pino JSON line becomes `level [context] msg: model vN — why`
 * (the model and version are what tells `version routable` lines apart); other text is kept.
 * Returns the text and the parsed event (undefined for non-JSON lines).
 */
function formatLogLine(line) {
  if (!line.startsWith('{')) return { text: line, event: undefined };
  let e;
  try {
    e = JSON.parse(line);
  } catch {
    return { text: line, event: undefined };
  }
  let text = `${(e.level || 'info').padEnd(5)} ${e.context ? `[${e.context}] ` : ''}${e.msg ?? ''}`;
  text += subjectOf(e);
  const why = (e.err && e.err.message) || (typeof e.reason === 'string' ? e.reason : '');
  if (why) text += ` — ${why}`;
  return { text, event: e };
}

module.exports = { formatLogLine };
