// The benchmark's fakes, in their own process so their CPU is not counted as ours:
// an agent answering after 300 ms and an LLM (tester and judge) answering after 200 ms.
import { startFakeOpenAi } from '../test/fakes/openai-agent.js';
import { startFakeLlm } from '../test/fakes/fake-llm.js';

const agentMs = Number(process.env.AGENT_MS ?? 300);
const llmMs = Number(process.env.LLM_MS ?? 200);
const agent = await startFakeOpenAi({ apiKey: null, latencyMs: agentMs, reply: () => 'Certainly, you are booked for Tuesday at nine.' });
const llm = await startFakeLlm({ apiKey: null, latencyMs: llmMs, tester: (m) => `I would like an appointment, message ${m.length}.` });
process.stdout.write(JSON.stringify({ agentUrl: agent.baseUrl, llmUrl: llm.baseUrl, testerModel: llm.testerModel, judgeModel: llm.judgeModel }) + '\n');
process.on('SIGTERM', async () => { await agent.close(); await llm.close(); process.exit(0); });
