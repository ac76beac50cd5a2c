// Runs `npm test`'s checks in lanes. Plain CommonJS with Node built-ins only, like setup.js.
'use strict';
const { spawn } = require('node:child_process');

/**
 * Runs each lane's steps one after another and the lanes side by side: on two cores, eslint in
 * one lane and prettier, tsc and the rest in the other take about half the time of one queue.
 * A step's output is held and printed whole when it ends, so two lanes never mix their lines.
 * Every step runs whatever an earlier one did, so one run shows every problem.
 *
 * @param {Array<Array<{ name: string, cmd: string, args: string[] }>>} lanes
 * @param {{ cwd: string, env?: NodeJS.ProcessEnv }} options
 * @returns {Promise<string[]>} the names of the steps that failed, in the order they ended
 */
async function runLanes(lanes, options) {
  const failed = [];
  await Promise.all(
    lanes.map(async (lane) => {
      for (const step of lane) {
        const ok = await runHeld(step, options);
        if (!ok) failed.push(step.name);
      }
    }),
  );
  return failed;
}

function runHeld({ name, cmd, args }, { cwd, env }) {
  const started = Date.now();
  return new Promise((resolve) => {
    const chunks = [];
    let reported = false;
    const child = spawn(cmd, args, {
      cwd,
      env: env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    const report = (ok, why) => {
      // A child that cannot start may emit both 'error' and 'close'.
      if (reported) return;
      reported = true;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`\n> ${name} (${seconds} s${ok ? '' : `, ${why}`})`);
      const out = Buffer.concat(chunks).toString('utf8');
      if (out.length > 0) process.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
      resolve(ok);
    };
    child.on('error', (err) => report(false, `could not start: ${err.message}`));
    child.on('close', (code, signal) =>
      report(code === 0, signal ? `killed by ${signal}` : `exit code ${code}`),
    );
  });
}

module.exports = { runLanes };
