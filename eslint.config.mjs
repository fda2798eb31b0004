// ESLint for the TypeScript in src/ and the replay benchmark (flat config), with the rules of JupyterLab's extension
// template. Formatting is Prettier's (`.prettierrc`), checked by eslint-plugin-prettier.
import js from '@eslint/js';
import prettierRecommended from 'eslint-plugin-prettier/recommended';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/*.d.ts',
      '**/*.js',
      '**/*.mjs',
      '.venv/',
      'coverage/',
      'docs/',
      'jupyter_codecomplete/',
      'lib/',
      'node_modules/',
      'ui-tests/'
    ]
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettierRecommended,
  {
    files: ['src/**/*.ts', 'src/**/*.tsx', 'benchmarks/replay/**/*.ts'],
    languageOptions: {
      globals: { ...globals.browser, ...globals.jest }
    },
    rules: {
      '@typescript-eslint/naming-convention': [
        'error',
        {
          selector: 'interface',
          format: ['PascalCase'],
          custom: { regex: '^I[A-Z]', match: true }
        }
      ],
      '@typescript-eslint/no-unused-vars': ['warn', { args: 'none', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-namespace': 'off',
      '@typescript-eslint/no-use-before-define': 'off',
      curly: ['error', 'all'],
      eqeqeq: 'error',
      'prefer-arrow-callback': 'error'
    }
  }
);
