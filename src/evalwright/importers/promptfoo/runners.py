"""The programs that run a promptfoo config's own code at import time, each in a child
process: a Node.js module for JavaScript, a Python module for Python
(docs/importing.md#code-the-config-names)."""

NODE_RUNNER = r"""// Calls a promptfoo config's JavaScript function (`evalwright import promptfoo`).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [requestPath, outputPath] = process.argv.slice(2);
const { file, name, calls, data } = JSON.parse(readFileSync(requestPath, 'utf8'));
const said = (err) =>
  String(err && err.message !== undefined ? `${err.name}: ${err.message}` : err);

async function load() {
  try {
    return await import(pathToFileURL(file).href);
  } catch (err) {
    try {
      return createRequire(file)(file);
    } catch {
      throw err;
    }
  }
}

async function main() {
  let found;
  try {
    const module = await load();
    const mod = module?.default?.default || module?.default || module;
    found = name ? mod[name] : mod;
  } catch (err) {
    return { error: said(err).split('\n')[0] };
  }
  if (typeof found !== 'function') {
    if (data) return { results: calls.map(() => ({ value: found ?? null })) };
    return { error: `${name ? `'${name}'` : 'the module'} is not a function` };
  }
  const results = [];
  for (const args of calls) {
    try {
      const value = await found(...args);
      results.push({ value: value === undefined ? null : value });
    } catch (err) {
      results.push({ error: said(err).split('\n')[0] });
    }
  }
  return { results };
}

writeFileSync(outputPath, JSON.stringify(await main()));
"""
"""Reads ``{file, name, calls, data}`` and writes ``{results: [{value} | {error}]}`` or
``{error}``: the module is imported as promptfoo imports it (ESM, then CommonJS), its
default export or the named one called once per entry of ``calls``; with ``data``, an
export that is not a function is the value itself (a tests file)."""

PYTHON_RUNNER = r'''"""Calls a promptfoo config's Python function (`evalwright import promptfoo`
wrote it)."""

import asyncio
import contextlib
import importlib.util
import json
import os
import sys


def said(exc):
    return f"{type(exc).__name__}: {exc}".splitlines()[0]


def load(file, name):
    folder = os.path.dirname(os.path.abspath(file))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module_name = os.path.basename(file).rsplit(".", 1)[0]
    spec = importlib.util.spec_from_file_location(module_name, file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = module
    for part in name.split("."):
        found = getattr(found, part)
    return found


def call(function, args):
    result = function(*args)
    return asyncio.run(result) if asyncio.iscoroutine(result) else result


def main():
    request_path, output_path = sys.argv[1:3]
    with open(request_path, encoding="utf-8") as handle:
        request = json.load(handle)
    # what the user's code prints must not reach the results
    with contextlib.redirect_stdout(sys.stderr):
        try:
            function = load(request["file"], request["name"])
        except BaseException as exc:
            out = {"error": said(exc)}
        else:
            results = []
            for args in request["calls"]:
                try:
                    value = call(function, args)
                    json.dumps(value)
                    results.append({"value": value})
                except BaseException as exc:
                    results.append({"error": said(exc)})
            out = {"results": results}
    with open(output_path, "w", encoding="utf-8") as handle:
        json.dump(out, handle, ensure_ascii=False)


main()
'''
"""Reads ``{file, name, calls}`` and writes ``{results: [{value} | {error}]}`` or
``{error}``: the module is loaded as promptfoo's Python wrapper loads it (its folder on the
path; ``Class.method`` names a class's function) and called once per entry of ``calls``."""
