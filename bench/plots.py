"""Plots of the benchmark tables, drawn from the tables themselves.

Each table-writing benchmark hands its markdown table to one function here,
which reads the numbers back out of it and draws a PNG into ``docs/img/``.
Reading the table (not the benchmark's internal records) means a plot can
be redrawn from ``docs/benchmarks.md`` alone: ``python -m bench.plots``
redraws them all from the tables on that page.

matplotlib is the only extra dependency (the ``bench`` extra); it is
imported inside the drawing functions.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["PLOTS", "markdown_rows", "plot_accuracy", "plot_cycle", "plot_hulls", "plot_math_ops",
           "plot_robots", "redraw_all"]

DOCS = Path(__file__).resolve().parents[1] / "docs"
IMAGES = DOCS / "img"


def markdown_rows(table: str) -> list[dict[str, str]]:
    """The rows of the first markdown table in ``table``, as ``{header: cell}``."""
    lines = [line.strip() for line in table.splitlines()]
    for k, line in enumerate(lines):
        separator = k + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|$", lines[k + 1])
        if line.startswith("|") and separator:
            headers = [c.strip() for c in line.strip("|").split("|")]
            rows = []
            for body in lines[k + 2:]:
                if not body.startswith("|"):
                    break
                rows.append(dict(zip(headers, (c.strip() for c in body.strip("|").split("|")))))
            return rows
    raise ValueError("no markdown table found")


def _number(cell: str) -> float:
    """The leading number of a cell (``0.62 (0.55–0.65)`` -> 0.62); NaN for ``—``."""
    match = re.match(r"^\s*([-+0-9.eE]+)", cell.replace("`", ""))
    return float(match[1]) if match else math.nan


def _spread(cell: str) -> tuple[float, float, float]:
    """``median (min–max)`` -> the three numbers (min and max equal the median if absent)."""
    numbers = [float(x) for x in re.findall(r"[0-9]+(?:\.[0-9]+)?(?:e[-+]?\d+)?", cell)]
    if len(numbers) >= 3:
        return numbers[0], numbers[1], numbers[2]
    return (numbers[0],) * 3 if numbers else (math.nan,) * 3


def _figure(width: float, height: float):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt, plt.subplots(figsize=(width, height), layout="constrained")


def _save(plt, fig, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    # No timestamps in the file: the same table gives the same bytes.
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path


def plot_cycle(table: str, path: Path = IMAGES / "cycle_ratios.png") -> Path:
    """``bench.run``: ours / each peer by scene size, one panel per query (prebuilt poses)."""
    rows = [r for r in markdown_rows(table) if r["poses"] == "prebuilt"
            and r["scene"].startswith("random N=")]
    peers = {"Drake": "tab:blue", "coal": "tab:orange", "pybullet": "tab:green",
             "raw FCL": "tab:red"}
    queries = ("penetration", "signed_distance", "points")
    plt, (fig, axes) = _figure(10, 3.4)
    fig.clf()
    axes = fig.subplots(1, len(queries), sharey=True)
    for ax, query in zip(axes, queries):
        chosen = [r for r in rows if r["query"] == query]
        sizes = [int(r["scene"].split("=")[1]) for r in chosen]
        for peer, color in peers.items():
            ratios = [_number(r["ours ms"]) / _number(r[f"{peer} ms"]) for r in chosen]
            if all(math.isnan(x) for x in ratios):
                continue
            ax.plot(sizes, ratios, marker="o", color=color, label=f"ours / {peer}")
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(query.replace("_", " "))
        ax.set_xlabel("geometries in the scene")
    axes[0].set_ylabel("time ratio (< 1: geometry_core faster)")
    axes[0].legend(fontsize=8)
    return _save(plt, fig, path)


def plot_robots(table: str, path: Path = IMAGES / "robots.png") -> Path:
    """``bench.robots``: ours / Drake per arm and query, with the rounds' min–max."""
    rows = markdown_rows(table)
    plt, (fig, ax) = _figure(6, 3)
    labels, medians, low, high = [], [], [], []
    for r in rows:
        median, lo, hi = _spread(r["ours/Drake"])
        labels.append(f"{r['arm']}\n{r['query'].replace('_', ' ')}")
        medians.append(median)
        low.append(median - lo)
        high.append(hi - median)
    ax.bar(labels, medians, yerr=[low, high], capsize=4, color="tab:blue")
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_ylabel("ours / Drake (< 1: faster)")
    return _save(plt, fig, path)


def plot_hulls(table: str, path: Path = IMAGES / "hulls.png") -> Path:
    """``bench.hulls``: ours / Drake by vertex count, one line per query."""
    rows = markdown_rows(table)
    plt, (fig, ax) = _figure(6, 3)
    for query in dict.fromkeys(r["query"] for r in rows):
        chosen = [r for r in rows if r["query"] == query]
        ax.plot([int(r["vertices"]) for r in chosen], [_number(r["ours/Drake"]) for r in chosen],
                marker="o", label=query.replace("_", " "))
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("hull vertices")
    ax.set_ylabel("ours / Drake (< 1: faster)")
    ax.legend(fontsize=8)
    return _save(plt, fig, path)


def plot_math_ops(table: str, path: Path = IMAGES / "math_ops.png") -> Path:
    """``bench.math_ops``: ours / pydrake for every operation, sorted."""
    rows = sorted(markdown_rows(table), key=lambda r: _number(r["ours/pydrake"]))
    plt, (fig, ax) = _figure(7, 0.16 * len(rows) + 1)
    ax.barh([r["operation"].replace("`", "") for r in rows],
            [_number(r["ours/pydrake"]) for r in rows], color="tab:blue")
    ax.axvline(1.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel("ours / pydrake (< 1: faster)")
    ax.tick_params(axis="y", labelsize=7)
    ax.margins(y=0.005)
    return _save(plt, fig, path)


def plot_accuracy(table: str, path: Path = IMAGES / "accuracy.png") -> Path:
    """``accuracy_table``: each library's distance error against the reference, per pair."""
    rows = [r for r in markdown_rows(table) if not math.isnan(_number(r["ours vs reference"]))]
    plt, (fig, ax) = _figure(7, 0.22 * len(rows) + 1.2)
    names = [r["pair"].split(" (")[0] for r in rows]
    floor = 1e-18  # an error of exactly 0 on a log axis
    for offset, column, color in ((-0.2, "ours vs reference", "tab:blue"),
                                  (0.2, "Drake vs reference", "tab:orange")):
        values = [max(_number(r[column]), floor) for r in rows]
        ax.barh([k + offset for k in range(len(rows))], values, height=0.4, color=color,
                label=column.replace(" vs reference", ""))
    ax.set_yticks(range(len(rows)), names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("largest distance error against the reference (m)")
    ax.legend(fontsize=8)
    return _save(plt, fig, path)


#: Marker name of each table in docs/benchmarks.md -> the function that plots it.
PLOTS: dict[str, Callable[[str], Path]] = {
    "bench": plot_cycle, "robots": plot_robots, "hulls": plot_hulls,
    "math-bench": plot_math_ops}


def redraw_all(page: Path = DOCS / "benchmarks.md") -> list[Path]:
    """Redraw every plot from the tables on ``page`` and the accuracy page's."""
    text = page.read_text()
    drawn = [plot_accuracy((DOCS / "accuracy.md").read_text())]
    for name, plot in PLOTS.items():
        section = re.search(f"<!-- {name}:start -->(.*?)<!-- {name}:end -->", text, re.S)
        if section is None:
            raise SystemExit(f"{page} has no {name} table")
        drawn.append(plot(section[1]))
    return drawn


if __name__ == "__main__":
    for drawn_path in redraw_all():
        print(drawn_path)
    sys.exit(0)
