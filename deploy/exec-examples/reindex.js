#!/usr/bin/env node
// reindex - an exec tool in Node (wymcp-exec(5)) that reports progress
// as JSON lines on descriptor 3 and may run as a task.
'use strict';
const fs = require('fs');

const call = JSON.parse(fs.readFileSync(0, 'utf8'));
const steps = call.arguments.steps || 5;
const events = fs.createWriteStream(null, { fd: 3 });
const delay = Number(process.env.REINDEX_STEP_MS || 100);

function event(obj) {
  events.write(JSON.stringify(obj) + '\n');
}

let done = 0;
function step() {
  if (done === steps) {
    event({ log: 'info', message: 'reindex finished' });
    events.end(() => {
      process.stdout.write(JSON.stringify({
        content: [{ type: 'text', text: `Reindexed ${steps} shards.` }],
        structuredContent: { shards: steps, task: call.task },
      }) + '\n');
    });
    return;
  }
  done++;
  event({ progress: done, total: steps, message: `shard ${done} of ${steps}` });
  setTimeout(step, delay);
}
step();
