"""The browser client: plain ES modules, CSS and SVG served from the package (no build step)."""
