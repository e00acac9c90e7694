// Lint for the extension's TypeScript, its unit tests and the end-to-end harness (plain Node scripts).
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "out/**", "node_modules/**", ".venv/**"] },
  js.configs.recommended,
  {
    files: ["extension/**/*.ts", "test/extension/**/*.ts"],
    extends: [...tseslint.configs.strict],
    languageOptions: { globals: globals.node },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always", { null: "ignore" }],
      curly: ["error", "multi-line"],
      "no-console": "error",
    },
  },
  {
    files: ["test/e2e/**/*.js", "esbuild.mjs", "wheel.mjs"],
    languageOptions: { globals: { ...globals.node, ...globals.browser }, sourceType: "commonjs" },
  },
  {
    files: ["esbuild.mjs", "wheel.mjs"],
    languageOptions: { sourceType: "module" },
  },
);
