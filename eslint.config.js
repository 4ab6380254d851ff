// Lint rules for the browser client (tracklayer/web/static) and its unit tests (tests/js).
// Formatting is prettier's job (.prettierrc.json); these rules catch mistakes, not style.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", ".venv/", "build/", "tracklayer/**/*.c"] },
  js.configs.recommended,
  {
    files: ["tracklayer/web/static/**/*.js"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: { ...globals.browser } },
    rules: {
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-var": "error",
      "prefer-const": "error",
      "no-implicit-globals": "error",
    },
  },
  {
    files: ["tracklayer/web/static/score-sw.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.serviceworker } },
  },
  {
    files: ["tests/js/**/*.js", "*.config.js"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: { ...globals.node } },
  },
];
