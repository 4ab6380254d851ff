// Hooks the pages leave on window for the browser tests (tests/web) to read their state.
interface Window {
  __tracklayer: unknown;
  __replay: unknown;
  __score: unknown;
}
