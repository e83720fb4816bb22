// ESLint's and typescript-eslint's recommended rules, the latter with type information.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['out/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test runs a test() whose promise nobody awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test'] }] },
      ],
    },
  },
  // This file is not part of the TypeScript project.
  { files: ['**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
);
