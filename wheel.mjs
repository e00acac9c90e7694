// Builds the hdecomp wheel (the Python package: library, CLI and language server) into dist/python/, so
// that the .vsix carries it and the extension can offer an exact install command that works offline
// (`<interpreter> -m pip install <extension>/dist/python/hdecomp-*.whl`; pip still fetches its dependencies).
//   node wheel.mjs        uses $PYTHON, else .venv/bin/python, else python3 (needs setuptools + wheel)
// A failed build is a warning, not an error: the extension then suggests installing from a checkout.
// setuptools builds in ./build (gitignored scratch); it is cleared before and after, so that files deleted
// from the sources never linger in the wheel.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const out = join("dist", "python");
const python = process.env.PYTHON || (existsSync(join(".venv", "bin", "python")) ? join(".venv", "bin", "python") : "python3");
const scratch = ["build/lib", "build/bdist.linux-x86_64", "build/bdist.linux-aarch64"];
scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const result = spawnSync(python, ["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "--wheel-dir", out, "."], {
  stdio: "inherit",
  env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: "1" },
});
scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
const wheels = existsSync(out) ? readdirSync(out).filter((f) => f.endsWith(".whl")) : [];
if (result.status !== 0 || wheels.length === 0) {
  console.warn(`wheel.mjs: could not build the hdecomp wheel with ${python}; the .vsix will not carry one`);
} else {
  console.log(`wheel.mjs: ${join(out, wheels[0])}`);
}
