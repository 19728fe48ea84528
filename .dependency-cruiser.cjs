// Imports point inward: the HTTP edge, the CLI and the workers may use the modules, the modules the engine
// and the providers, everything the lib; never the other way round, and no folder imports a folder that
// imports it back. `npm run lint` (part of `npm test`) runs this.

const climbing = (name, from, to, comment) => ({ name, severity: 'error', comment, from: { path: from }, to: { path: to } });

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      comment: 'A folder must not import a folder that imports it back.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    climbing('lib-is-innermost', '^src/lib/', '^src/(?!lib/)', 'src/lib/ depends on nothing else in src/.'),
    climbing('engine-owns-the-provider-port', '^src/engine/', '^src/(providers|modules|http|cli|jobs|db)/', 'The engine defines the ports the providers implement; it imports no adapter, module or edge.'),
    climbing('providers-below-modules', '^src/providers/', '^src/(modules|http|cli|jobs|db)/', 'Adapters know the engine port and lib only.'),
    climbing('http-edge-does-not-import-modules', '^src/http/', '^src/(modules|cli)/', 'The HTTP plumbing (auth, errors, validation) serves every module and imports none.'),
    climbing('server-does-not-import-cli', '^src/(server|app|routes|runtime|control)\\.ts$', '^src/cli/', 'The CLI starts the server, not the other way round.'),
    climbing('modules-do-not-import-edges', '^src/modules/', '^src/cli/', 'Modules are called by the CLI, never the reverse.'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['\\.test\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
  },
};
