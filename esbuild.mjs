// Bundles the extension (extension/extension.ts and vscode-languageclient) into one file, dist/extension.js.
//   node esbuild.mjs                 development build with source maps
//   node esbuild.mjs --production    minified, no source maps (what `npm run package` ships)
//   node esbuild.mjs --watch         rebuild on change
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");

const options = {
  entryPoints: ["extension/extension.ts"],
  bundle: true,
  outfile: "dist/extension.js",
  platform: "node",
  format: "cjs",
  // VS Code 1.90 runs extensions on Node 20 (Electron 29).
  target: "node20",
  external: ["vscode"],
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: "info",
};

if (watch) {
  const context = await esbuild.context(options);
  await context.watch();
} else {
  await esbuild.build(options);
}
