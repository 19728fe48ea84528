// The benchmark's LLM fake (tester and judge, answering after 200 ms), in its own process so its CPU is not
// counted as ours. The agent under test is bench/fake-agent.ts, in another process.
import { startFakeLlm } from '../test/fakes/fake-llm.js';

const llmMs = Number(process.env.LLM_MS ?? 200);
const llm = await startFakeLlm({ apiKey: null, latencyMs: llmMs, tester: (m) => `I would like an appointment, message ${m.length}.` });
process.stdout.write(JSON.stringify({ llmUrl: llm.baseUrl, testerModel: llm.testerModel, judgeModel: llm.judgeModel }) + '\n');
process.on('SIGTERM', async () => { await llm.close(); process.exit(0); });
