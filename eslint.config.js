// The repository's lint gate: neostandard (the style Fastify's own repositories use) with its
// TypeScript rules, and lines of at most 120 columns — a long string, URL or comment may run over,
// since wrapping it hurts reading more than it helps.
import neostandard, { resolveIgnoresFromGitignore } from 'neostandard'
import globals from 'globals'

export default [
  ...neostandard({
    ts: true,
    // examples/client/index.ts is what `svc client` generates, compared byte for byte with the
    // generator's output by a test: it is formatted by the generator, not by hand.
    ignores: [...resolveIgnoresFromGitignore(), 'examples/client/index.ts']
  }),
  {
    rules: {
      '@stylistic/max-len': [
        'error',
        {
          code: 120,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreComments: true,
          ignoreUrls: true,
          ignoreRegExpLiterals: true
        }
      ],
      // `void promise` marks a promise deliberately left to run (a fire-and-forget send, a reply
      // Fastify awaits itself): allowed as a statement, still refused inside an expression.
      'no-void': ['error', { allowAsStatement: true }],
      // Off, as typescript-eslint advises for TypeScript code: tsc already refuses a real
      // redeclaration, and the rule flags TypeBox's idiom of a schema and its Static type sharing
      // one name (`export const LoginBody = Type.Object(…)` / `export type LoginBody = Static<…>`).
      '@typescript-eslint/no-redeclare': 'off'
    }
  },
  {
    // Code that runs in the browser: the agent's chat page and the console app.
    files: ['packages/agent/public/**', 'packages/console/app/**'],
    languageOptions: { globals: globals.browser }
  }
]
