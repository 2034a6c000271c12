#!/usr/bin/env python3
"""README's request bodies, from the examples in openapi.yaml.

Every operation of Sources/HandoverServer/openapi.yaml that takes a body carries an `example`
on its media type. This script checks each example against its schema (jsonschema, the
components' `$ref`s resolved), then writes them into README.md between the markers
`<!-- request-examples:start -->` and `<!-- request-examples:end -->`: JSON bodies as JSON, form
bodies as the `key=value&…` text that is sent, any other body (a SET) as its text.

    python3 scripts/openapi/request-examples.py           # rewrite README.md's section
    python3 scripts/openapi/request-examples.py --check   # exit 1 when README.md is not what it writes,
                                                          # or an example is missing or does not fit

CI runs --check (.ci/run). Schemathesis sends the same examples to a live server
(scripts/check-openapi.sh, its examples phase).
"""
import copy
import json
import sys
import urllib.parse
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "Sources/HandoverServer/openapi.yaml"
README = ROOT / "README.md"
START, END = "<!-- request-examples:start -->", "<!-- request-examples:end -->"
METHODS = ("post", "put", "patch")


def resolved(node, components):
    """`node` with every `$ref` to a component schema replaced by the schema (inputs are not recursive)."""
    if isinstance(node, dict):
        if "$ref" in node:
            return resolved(components[node["$ref"].rsplit("/", 1)[-1]], components)
        return {key: resolved(value, components) for key, value in node.items() if key not in ("nullable", "example")}
    if isinstance(node, list):
        return [resolved(value, components) for value in node]
    return node


def bodies(spec):
    """(method, path, summary, media type, example, schema) for every operation with a body, in the document's order."""
    components = spec["components"]["schemas"]
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method not in METHODS or "requestBody" not in operation:
                continue
            for media, content in operation["requestBody"]["content"].items():
                yield (method.upper(), path, operation.get("summary", ""), media, content.get("example"),
                       resolved(copy.deepcopy(content.get("schema", {})), components))


def section(spec):
    problems, lines = [], [START, "<details><summary>A request body for each operation that takes one (from the examples in "
                                  "<code>openapi.yaml</code>)</summary>", ""]
    for method, path, summary, media, example, schema in bodies(spec):
        where = f"{method} {path} ({media})"
        if example is None:
            problems.append(f"{where}: no example")
            continue
        for error in jsonschema.Draft4Validator(schema).iter_errors(example):
            problems.append(f"{where}: the example does not fit its schema at {'/'.join(map(str, error.path)) or 'the top'}: {error.message}")
        lines.append(f"`{method} {path}`" + (f": {summary.rstrip('.')}" if summary else ""))
        lines.append("")
        if media == "application/json":
            lines += ["```json", json.dumps(example, indent=2, ensure_ascii=False), "```", ""]
        elif isinstance(example, str):  # a body sent as it is, such as a SET (application/secevent+jwt)
            lines += [f"```text\n{example}\n```", ""]
        else:
            lines += [f"```text\n{urllib.parse.urlencode(example)}\n```", ""]
    lines += ["</details>", END]
    return "\n".join(lines), problems


def main():
    check = "--check" in sys.argv[1:]
    spec = yaml.safe_load(SPEC.read_text())
    text, problems = section(spec)
    readme = README.read_text()
    if START not in readme or END not in readme:
        problems.append(f"README.md has no {START} … {END} section")
        new = readme
    else:
        before, rest = readme.split(START, 1)
        new = before + text + rest.split(END, 1)[1]
    for problem in problems:
        print(f"request-examples: {problem}", file=sys.stderr)
    if problems:
        return 1
    if check:
        if new != readme:
            print("request-examples: README.md's request bodies are not openapi.yaml's examples; "
                  "run python3 scripts/openapi/request-examples.py", file=sys.stderr)
            return 1
        print(f"request-examples: README.md shows the {text.count('```') // 2} request bodies of openapi.yaml")
        return 0
    README.write_text(new)
    print(f"request-examples: wrote {text.count('```') // 2} request bodies into README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
