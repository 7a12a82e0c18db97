"""The designed evaluation of two real models (issue 44): writes benchmarks/results/evaluation.md
from a report folder of `fairpairs evaluate`, with the commit, the command, the design and the time.

    fairpairs evaluate --models smollm2-135m,gemma3-270m --paradigms all -n lp,mean_lp,pen_lp \\
        --seed 0 --out /tmp/eval44 --cache-dir /tmp/eval44-cache
    python benchmarks/evaluation.py /tmp/eval44 --command "<the command above>" \\
        --out benchmarks/results/evaluation.md

Reads only the report folder (report.md, results.json); a benchmark, never the product.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def section(md: str, title: str) -> str:
    """The text of report.md's section `title` (up to the next section of the same level)."""
    start = md.index(title)
    level = title.split(" ")[0]
    end = md.find("\n" + level + " ", start + len(title))
    return md[start:end if end > 0 else len(md)].strip() + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("report", type=Path)
    ap.add_argument("--command", required=True, help="the command that wrote the report folder")
    ap.add_argument("--wall", default="", help="the command's wall time, as measured (e.g. '41 min')")
    ap.add_argument("--load", default="", help="the machine's load while it ran")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    md = (args.report / "report.md").read_text()
    results = json.loads((args.report / "results.json").read_text())
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    design = results["settings"]["design"]
    first_lines = md.split("\n## ", 1)[0].split("\n", 1)[1].strip()
    versions = ", ".join(f"{k} {v}" for k, v in results["versions"].items() if v)
    out = [f"# Evaluation: SmolLM2-135M and Gemma 3 270M on all 67 paradigms, designed (issue 44)\n",
           f"commit {commit}; fairpairs {results['fairpairs']}; {versions}; CPU, 2 cores"
           + (f" ({args.load})" if args.load else "") + ".\n",
           "```\n" + args.command + "\n"
           + f"python benchmarks/evaluation.py {os.fspath(args.report)} --command '...' --out {os.fspath(args.out)}\n```\n",
           f"Wall time of the command: {args.wall or 'not measured'}. Sentences scored per model: "
           + ", ".join(f"{m}: {s['sentences']:,}" for m, s in design.get("models", {}).items()) + ".\n",
           "## What the report says about its data and design (report.md's first lines)\n", first_lines + "\n",
           "## The design (results.json, settings.design)\n",
           "```json\n" + json.dumps(design, indent=1) + "\n```\n",
           section(md, "## Headline"),
           section(md, "## Models compared pair for pair") if "## Models compared pair for pair" in md else ""]
    text = re.sub(r"!\[[^\]]*\]\(([^)]+\.png)\)", r"*(figure: \1 in the report folder)*", "\n".join(out))
    args.out.write_text(text)      # (the report's figures stay in its folder: no broken image links)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
