import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { clientAction, withConnection } from './resources.js';
import { parseIntOption, UsageError, type CliIo } from './io.js';

// `rehearsal scenarios generate`: drafts from POST /scenarios/generate written as scenario files,
// `<slug>.yaml` each (the draft without its slug: the file name is the slug), ready for `rehearsal validate`.

type Opts = { url?: string; apiKey?: string; description?: string; descriptionFile?: string; count?: string; categories?: string; agent?: string; out: string; force?: boolean };

export function registerGenerateCommand(program: Command, io: CliIo, setExit: (code: number) => void) {
  const scenarios = program.commands.find((c) => c.name() === 'scenarios') ?? program.command('scenarios').description('Scenario templates');
  withConnection(scenarios.command('generate').description('Draft scenario files from a description or system prompt (POST /scenarios/generate)')
    .option('--description <text>', 'what the agent does, or its system prompt')
    .option('--description-file <file>', 'read the description from a file (e.g. the system prompt)')
    .option('--count <n>', 'how many drafts, 1-50 (default 10)')
    .option('--categories <list>', 'comma-separated categories (default: the library\'s)')
    .option('--agent <id>', 'an agent whose name and description are added to the brief')
    .option('--force', 'overwrite existing files')
    .requiredOption('--out <dir>', 'where to write <slug>.yaml, e.g. rehearsal/scenarios/'))
    .action(clientAction<Opts & { json?: boolean }>(io, setExit, 'scenarios generate', async (client, o) => {
      let description = o.description;
      if (o.descriptionFile) {
        try { description = fs.readFileSync(o.descriptionFile, 'utf8'); } catch (err) { throw new UsageError(`cannot read ${o.descriptionFile}: ${(err as Error).message}`); }
      }
      if (!description?.trim()) throw new UsageError('pass --description or --description-file');
      const res = await client.scenarios.generate({
        description, count: parseIntOption(o.count, '--count', 1, 50), agent_id: o.agent,
        categories: o.categories ? o.categories.split(',').map((c) => c.trim()).filter(Boolean) : undefined,
      }, { signal: io.signal });
      const files = res.scenarios.map((d) => {
        const { slug, ...body } = d as Record<string, unknown> & { slug: string };
        return { file: path.join(o.out, `${slug}.yaml`), body };
      });
      // all or nothing: an existing file stops the command before any draft is written
      const existing = o.force ? [] : files.filter((f) => fs.existsSync(f.file)).map((f) => f.file);
      if (existing.length) throw new UsageError(`${existing.join(', ')} exist${existing.length === 1 ? 's' : ''}; nothing was written (pass --force to overwrite)`);
      fs.mkdirSync(o.out, { recursive: true });
      for (const { file, body } of files) {
        fs.writeFileSync(file, `# drafted by ${res.model}; review before committing\n` + stringify(body, { lineWidth: 0 }));
        io.out(`${file}\n`);
      }
      io.err(`${res.scenarios.length} draft(s) written${res.dropped ? `, ${res.dropped} dropped (the model's answers were invalid)` : ''}\n`);
    }));
}
